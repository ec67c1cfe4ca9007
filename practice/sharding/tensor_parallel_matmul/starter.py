"""Tensor-Parallel Matmul with shard_map.

Split the two weight matrices of an MLP over a mesh axis the Megatron-LM way:
the first by columns, the second by rows. The hidden activations never leave
their device, and one ``psum`` at the end combines the partial outputs.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P


def column_parallel(
    x: jax.Array, w: jax.Array, mesh: Mesh, axis_name: str = "model"
) -> jax.Array:
    """``x @ w`` with w split by columns over ``axis_name``, written with
    ``jax.shard_map``.

    x: (B, D) replicated; w: (D, H), with H divisible by
    n = mesh.shape[axis_name]. Each device multiplies x by its (D, H/n)
    column block; no communication. Returns the (B, H) product, sharded as
    ``P(None, axis_name)`` (each device holds its (B, H/n) block). Inputs may
    be unplaced arrays: put them on the mesh with the layout you need.
    """
    raise NotImplementedError(
        "column_parallel: shard_map with w in P(None, axis_name)"
    )


def row_parallel(
    h: jax.Array, w: jax.Array, mesh: Mesh, axis_name: str = "model"
) -> jax.Array:
    """``h @ w`` with h split by columns and w by rows over ``axis_name``.

    h: (B, H) laid out as ``P(None, axis_name)``; w: (H, D) laid out as
    ``P(axis_name, None)``. Each device computes the partial product of its
    blocks, (B, D); a ``jax.lax.psum`` over ``axis_name`` adds them. Returns
    the (B, D) product, replicated on every device.
    """
    raise NotImplementedError(
        "row_parallel: partial products, then jax.lax.psum"
    )


def tp_mlp(
    x: jax.Array,
    w1: jax.Array,
    w2: jax.Array,
    mesh: Mesh,
    axis_name: str = "model",
) -> jax.Array:
    """Tensor-parallel MLP ``gelu(x @ w1) @ w2`` (``jax.nn.gelu`` with its
    default approximation).

    x: (B, D); w1: (D, H); w2: (H, D); H divisible by the size of
    ``axis_name``. The hidden (B, H) activations stay sharded by columns;
    exactly one psum and no other collective is used. Returns (B, D),
    replicated.
    """
    raise NotImplementedError(
        "tp_mlp: column_parallel, gelu on the local blocks, row_parallel"
    )
