"""Forget to cast the new rows to the cache dtype.

Caught by: test_casts_to_cache_dtype
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
    return jax.lax.dynamic_update_slice(buffer, rows, (pos, zero, zero))


def update_kv_cache(
    cache: Cache, k_new: jax.Array, v_new: jax.Array, pos: jax.Array
) -> Cache:
    """cache (B, L, K, H), k_new/v_new (B, S, K, H), pos (B,) -> new cache."""
    write = jax.vmap(write_rows)  # one position per sequence
    return {
        "k": write(cache["k"], k_new, pos),
        "v": write(cache["v"], v_new, pos),
    }
