"""Map query head n to KV head n % K (tile) instead of n // (N // K).

Caught by: test_matches_naive_repeat_kv
"""

import jax
import jax.numpy as jnp


def gqa_decode_step(
    q: jax.Array, k_cache: jax.Array, v_cache: jax.Array, lengths: jax.Array
) -> jax.Array:
    """q: (B, N, H), caches: (B, L, K, H), lengths: (B,) -> (B, N, H)."""
    b, n, h = q.shape
    max_len, k = k_cache.shape[1], k_cache.shape[2]
    # query head n -> (kv head n % K, member n // K)
    groups = q.reshape(b, n // k, k, h).swapaxes(1, 2)
    scores = jnp.einsum("bkgh,blkh->bkgl", groups, k_cache) / jnp.sqrt(
        h
    ).astype(q.dtype)
    valid = jnp.arange(max_len)[None, :] < lengths[:, None]  # (B, L)
    scores = jnp.where(valid[:, None, None, :], scores, -jnp.inf)
    weights = jax.nn.softmax(scores, axis=-1)  # (B, K, G, L)
    out = jnp.einsum("bkgl,blkh->bkgh", weights, v_cache)
    return out.swapaxes(1, 2).reshape(b, n, h).astype(q.dtype)
