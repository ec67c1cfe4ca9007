"""Top-k and Top-p Sampling: reference solution."""

from __future__ import annotations

import jax
import jax.numpy as jnp


def top_k_filter(logits: jax.Array, k: int) -> jax.Array:
    """Keep the k largest logits per row (ties: lower index), -inf elsewhere.
    (..., V) -> (..., V)."""
    vocab = logits.shape[-1]
    _, winners = jax.lax.top_k(logits, k)  # (..., k)
    # (..., V)
    keep = jnp.any(jax.nn.one_hot(winners, vocab, dtype=bool), axis=-2)
    return jnp.where(keep, logits, -jnp.inf)


def top_p_filter(logits: jax.Array, p) -> jax.Array:
    """Keep the smallest prefix of tokens (by probability) whose mass reaches
    p. (..., V) -> (..., V)."""
    # most probable first, ties by index
    order = jnp.argsort(-logits, axis=-1, stable=True)
    probs = jax.nn.softmax(logits, axis=-1)
    # p >= 1 keeps every token, even where float32 sums reach 1 too early
    p = jnp.where(p >= 1, jnp.inf, p)
    sorted_probs = jnp.take_along_axis(probs, order, axis=-1)
    mass_before = jnp.cumsum(sorted_probs, axis=-1) - sorted_probs
    keep_sorted = mass_before < p
    unsort = jnp.argsort(order, axis=-1)  # inverse permutation
    keep = jnp.take_along_axis(keep_sorted, unsort, axis=-1)
    return jnp.where(keep, logits, -jnp.inf)


def sample(
    key: jax.Array,
    logits: jax.Array,
    *,
    temperature=1.0,
    top_k: int | None = None,
    top_p=None,
) -> jax.Array:
    """Temperature, top-k, top-p, then a draw: (..., V) -> (...,) int32."""
    scaled = logits / temperature
    if top_k is not None:  # a Python-level choice: top_k is static
        scaled = top_k_filter(scaled, top_k)
    # only the presence of top_p is static, its value may be traced
    if top_p is not None:
        scaled = top_p_filter(scaled, top_p)
    return jax.random.categorical(key, scaled, axis=-1).astype(jnp.int32)
