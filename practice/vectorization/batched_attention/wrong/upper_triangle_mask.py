"""Masks with jnp.triu, so each query sees the future instead of the past.

Caught by: test_causal_first_position_and_future_independence,
    test_causal_matches_jax_nn, test_under_jit
"""

from functools import partial

import jax
import jax.numpy as jnp


def attention(
    q: jax.Array, k: jax.Array, v: jax.Array, causal: bool = False
) -> jax.Array:
    """One example. q: (T, N, H), k, v: (S, N, H) -> (T, N, H)."""
    logits = jnp.einsum("tnh,snh->nts", q, k) / jnp.sqrt(q.shape[-1]).astype(
        q.dtype
    )
    if causal:  # a Python bool: decided at trace time, not on a tracer
        t, s = logits.shape[-2:]
        allowed = jnp.triu(jnp.ones((t, s), dtype=bool))
        logits = jnp.where(allowed, logits, -jnp.inf)
    # subtracts the max: stable for large logits
    weights = jax.nn.softmax(logits, axis=-1)
    return jnp.einsum("nts,snh->tnh", weights, v)


def batched_attention(
    q: jax.Array, k: jax.Array, v: jax.Array, causal: bool = False
) -> jax.Array:
    """q: (B, T, N, H), k, v: (B, S, N, H) -> (B, T, N, H)."""
    return jax.vmap(partial(attention, causal=causal))(q, k, v)
