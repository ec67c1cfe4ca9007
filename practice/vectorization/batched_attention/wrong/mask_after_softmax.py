"""Zeroes the future weights after the softmax, without renormalising.

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
    # subtracts the max: stable for large logits
    weights = jax.nn.softmax(logits, axis=-1)
    if causal:  # a Python bool: decided at trace time, not on a tracer
        t, s = logits.shape[-2:]
        allowed = jnp.tril(jnp.ones((t, s), dtype=bool))
        weights = jnp.where(allowed, weights, 0.0)
    return jnp.einsum("nts,snh->tnh", weights, v)


def batched_attention(
    q: jax.Array, k: jax.Array, v: jax.Array, causal: bool = False
) -> jax.Array:
    """q: (B, T, N, H), k, v: (B, S, N, H) -> (B, T, N, H)."""
    return jax.vmap(partial(attention, causal=causal))(q, k, v)
