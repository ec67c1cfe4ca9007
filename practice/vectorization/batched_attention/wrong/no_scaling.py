"""Forgets to divide the logits by sqrt(H).

Caught by: test_batched_matches_jax_nn, test_causal_matches_jax_nn,
    test_single_example_matches_numpy
"""

from functools import partial

import jax
import jax.numpy as jnp


def attention(
    q: jax.Array, k: jax.Array, v: jax.Array, causal: bool = False
) -> jax.Array:
    """One example. q: (T, N, H), k, v: (S, N, H) -> (T, N, H)."""
    logits = jnp.einsum("tnh,snh->nts", q, k)
    if causal:  # a Python bool: decided at trace time, not on a tracer
        t, s = logits.shape[-2:]
        allowed = jnp.tril(jnp.ones((t, s), dtype=bool))
        logits = jnp.where(allowed, logits, -jnp.inf)
    # subtracts the max: stable for large logits
    weights = jax.nn.softmax(logits, axis=-1)
    return jnp.einsum("nts,snh->tnh", weights, v)


def batched_attention(
    q: jax.Array, k: jax.Array, v: jax.Array, causal: bool = False
) -> jax.Array:
    """q: (B, T, N, H), k, v: (B, S, N, H) -> (B, T, N, H)."""
    return jax.vmap(partial(attention, causal=causal))(q, k, v)
