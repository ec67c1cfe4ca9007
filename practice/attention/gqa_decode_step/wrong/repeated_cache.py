"""Repeat every KV head N // K times: the large array GQA avoids.

Caught by: test_does_not_materialise_repeated_cache
"""

import jax
import jax.numpy as jnp


def gqa_decode_step(
    q: jax.Array, k_cache: jax.Array, v_cache: jax.Array, lengths: jax.Array
) -> jax.Array:
    """q: (B, N, H), caches: (B, L, K, H), lengths: (B,) -> (B, N, H)."""
    b, n, h = q.shape
    max_len, k = k_cache.shape[1], k_cache.shape[2]
    k_rep = jnp.repeat(k_cache, n // k, axis=2)  # (B, L, N, H)
    v_rep = jnp.repeat(v_cache, n // k, axis=2)
    scores = jnp.einsum("bnh,blnh->bnl", q, k_rep) / jnp.sqrt(h).astype(
        q.dtype
    )
    valid = jnp.arange(max_len)[None, :] < lengths[:, None]  # (B, L)
    scores = jnp.where(valid[:, None, :], scores, -jnp.inf)
    weights = jax.nn.softmax(scores, axis=-1)  # (B, N, L)
    out = jnp.einsum("bnl,blnh->bnh", weights, v_rep)
    return out.astype(q.dtype)
