"""Apply the gelu to the summed output instead of the hidden layer.

Caught by: test_tp_mlp_matches_dense_mlp
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
    local = jax.shard_map(
        lambda x, w: x @ w,
        mesh=mesh,
        in_specs=(P(), columns),
        out_specs=columns,
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
    return jax.nn.gelu(row_parallel(h, w2, mesh, axis_name))
