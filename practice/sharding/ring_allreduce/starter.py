"""Ring All-Reduce with ppermute.

Sum an array over the devices of a mesh axis using only neighbour-to-neighbour
sends (``jax.lax.ppermute``), the way collective libraries do it on a ring of
devices: a reduce-scatter phase followed by an all-gather phase, each of n - 1
steps that move one chunk of size d / n.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp


def ring_allreduce(x: jax.Array, axis_name: str) -> jax.Array:
    """All-reduce (sum) of ``x`` over the mesh axis ``axis_name``; call it
    inside ``jax.shard_map``.

    x: this device's block, shape (d, ...) with d divisible by n =
    ``jax.lax.axis_size(axis_name)``. Returns an array of the same shape and
    dtype holding the sum of the blocks of all n devices, on every device (what
    ``jax.lax.psum(x, axis_name)`` returns).

    Split x into n chunks along axis 0. Device i sends only to device
    (i + 1) % n.
    Reduce-scatter: at step s = 0 .. n-2, device i sends its (partial sum of)
    chunk (i - s) % n and adds what it receives to its chunk (i - s - 1) % n;
    afterwards device i holds the full sum of chunk (i + 1) % n.
    All-gather: n - 1 more steps pass the finished chunks around the ring. Only
    ``jax.lax.ppermute`` may communicate: no psum, all_gather or psum_scatter;
    every ppermute moves a single (d / n, ...) chunk, 2 (n - 1) sends in total.
    """
    raise NotImplementedError(
        "ring_allreduce: chunks, axis_index, ppermute to the right neighbour"
    )
