"""Loop over the batch in Python and slice with int(pos[b]).

Caught by: test_under_jit_traced_position_compiles_once
"""

import jax
import jax.numpy as jnp

Cache = dict[str, jax.Array]


def init_kv_cache(
    batch: int,
    max_len: int,
    num_kv_heads: int,
    head_dim: int,
    dtype=jnp.float32,
) -> Cache:
    """{"k", "v"}: zeros (B, L, K, H)."""
    shape = (batch, max_len, num_kv_heads, head_dim)
    return {"k": jnp.zeros(shape, dtype), "v": jnp.zeros(shape, dtype)}


def write_rows(
    buffer: jax.Array, rows: jax.Array, pos: jax.Array
) -> jax.Array:
    """buffer (L, K, H), rows (S, K, H), pos traced -> rows written at pos."""
    zero = jnp.zeros((), pos.dtype)
    return jax.lax.dynamic_update_slice(
        buffer, rows.astype(buffer.dtype), (pos, zero, zero)
    )


def update_kv_cache(
    cache: Cache, k_new: jax.Array, v_new: jax.Array, pos: jax.Array
) -> Cache:
    """cache (B, L, K, H), k_new/v_new (B, S, K, H), pos (B,) -> new cache."""
    out = {}
    for name, new in (("k", k_new), ("v", v_new)):
        buffer = cache[name]
        for b in range(buffer.shape[0]):
            start = int(pos[b])  # a concrete start row
            rows = new[b].astype(buffer.dtype)
            buffer = buffer.at[b, start : start + rows.shape[0]].set(rows)
        out[name] = buffer
    return out
