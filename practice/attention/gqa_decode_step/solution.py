"""Grouped-Query Attention Decode Step: reference solution."""

import jax
import jax.numpy as jnp


def gqa_decode_step(
    q: jax.Array, k_cache: jax.Array, v_cache: jax.Array, lengths: jax.Array
) -> jax.Array:
    """q: (B, N, H), caches: (B, L, K, H), lengths: (B,) -> (B, N, H)."""
    b, n, h = q.shape
    max_len, k = k_cache.shape[1], k_cache.shape[2]
    # query head n -> (kv head n // G, member n % G)
    groups = q.reshape(b, k, n // k, h)
    scores = jnp.einsum("bkgh,blkh->bkgl", groups, k_cache) / jnp.sqrt(
        h
    ).astype(q.dtype)
    valid = jnp.arange(max_len)[None, :] < lengths[:, None]  # (B, L)
    scores = jnp.where(valid[:, None, None, :], scores, -jnp.inf)
    weights = jax.nn.softmax(scores, axis=-1)  # (B, K, G, L)
    # zero weight times an inf or nan in a garbage row would still be nan
    values = jnp.where(valid[:, :, None, None], v_cache, 0)
    out = jnp.einsum("bkgl,blkh->bkgh", weights, values)
    return out.reshape(b, n, h).astype(q.dtype)
