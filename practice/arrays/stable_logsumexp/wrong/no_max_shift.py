"""Computes log(sum(exp(x))) directly, without subtracting the max.

Caught by: test_gradient_is_softmax_and_finite,
    test_large_and_small_inputs_do_not_overflow,
    test_matches_float64_numpy_on_huge_values
"""

import jax
import jax.numpy as jnp


def logsumexp(
    x: jax.Array,
    axis: int | tuple[int, ...] | None = None,
    keepdims: bool = False,
) -> jax.Array:
    """x -> log(sum(exp(x))) over axis, shaped like jnp.sum(x, axis, ...)."""
    m = jnp.zeros_like(jnp.max(x, axis=axis, keepdims=True))
    # An all -inf slice has m = -inf and x - m = nan; shift it by 0 instead
    # (its sum is then 0).
    m = jnp.where(jnp.isfinite(m), m, 0.0)
    # The shift cancels mathematically, so its gradient is not needed.
    m = jax.lax.stop_gradient(m)
    out = jnp.log(jnp.sum(jnp.exp(x - m), axis=axis, keepdims=True)) + m
    return out if keepdims else jnp.squeeze(out, axis=axis)


def log_softmax(x: jax.Array, axis: int = -1) -> jax.Array:
    """x: float array -> same shape; log-probabilities along ``axis``."""
    return x - logsumexp(x, axis=axis, keepdims=True)
