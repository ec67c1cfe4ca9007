"""Start the all-gather from chunk i instead of the finished (i + 1) % n.

Caught by: test_sum_of_integer_blocks, test_matches_psum_on_several_ring_sizes
"""

from __future__ import annotations

import jax


def ring_allreduce(x: jax.Array, axis_name: str) -> jax.Array:
    """Sum of x over axis_name on a ring of ppermutes: (d, ...) -> (d, ...)."""
    n = jax.lax.axis_size(axis_name)
    me = jax.lax.axis_index(axis_name)
    to_right = [(i, (i + 1) % n) for i in range(n)]
    chunks = x.reshape((n, x.shape[0] // n) + x.shape[1:])

    def send_right(chunk):
        return jax.lax.ppermute(chunk, axis_name, perm=to_right)

    for step in range(n - 1):  # reduce-scatter
        received = send_right(chunks[(me - step) % n])
        chunks = chunks.at[(me - step - 1) % n].add(received)
    for step in range(n - 1):  # all-gather: chunk me % n is complete
        received = send_right(chunks[(me - step) % n])
        chunks = chunks.at[(me - step - 1) % n].set(received)
    return chunks.reshape(x.shape)
