"""All-gather the column blocks inside column_parallel (replicated h).

Caught by: test_column_parallel_values_and_layout
"""

from __future__ import annotations

import jax
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P


def _put(x, mesh: Mesh, spec: P):
    return jax.device_put(x, NamedSharding(mesh, spec))


def column_parallel(
    x: jax.Array, w: jax.Array, mesh: Mesh, axis_name: str = "model"
) -> jax.Array:
    """x (B, D) replicated, w (D, H) split by columns -> (B, H) split by
    columns."""
    columns = P(None, axis_name)

    def local_matmul(x, w):
        return jax.lax.all_gather(x @ w, axis_name, axis=1, tiled=True)

    local = jax.shard_map(
        local_matmul,
        mesh=mesh,
        in_specs=(P(), columns),
        out_specs=P(),
    )
    return local(_put(x, mesh, P()), _put(w, mesh, columns))


def row_parallel(
    h: jax.Array, w: jax.Array, mesh: Mesh, axis_name: str = "model"
) -> jax.Array:
    """h (B, H) split by columns, w (H, D) split by rows -> (B, D) replicated,
    one psum."""

    def local(h, w):
        # (B, D) partial sums -> full product
        return jax.lax.psum(h @ w, axis_name)

    sharded = jax.shard_map(
        local,
        mesh=mesh,
        in_specs=(P(None, axis_name), P(axis_name, None)),
        out_specs=P(),
    )
    return sharded(
        _put(h, mesh, P(None, axis_name)), _put(w, mesh, P(axis_name, None))
    )


def tp_mlp(
    x: jax.Array,
    w1: jax.Array,
    w2: jax.Array,
    mesh: Mesh,
    axis_name: str = "model",
) -> jax.Array:
    """gelu(x @ w1) @ w2, w1 split by columns, w2 by rows: (B, D) -> (B, D)."""
    h = column_parallel(x, w1, mesh, axis_name)  # (B, H), split by columns
    h = jax.nn.gelu(h)  # elementwise: stays split, no communication
    return row_parallel(h, w2, mesh, axis_name)
