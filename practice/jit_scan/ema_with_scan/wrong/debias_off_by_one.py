"""Bias-corrects with decay ** t for t = 0, 1, ... (one step early).

Caught by: test_edge_cases, test_hand_computed, test_matches_numpy_loop
"""

import jax
import jax.numpy as jnp


def ema(xs: jax.Array, decay, debias: bool = False) -> jax.Array:
    """xs: (T, ...) -> (T, ...) running EMA along axis 0."""

    def step(m, x):
        m = decay * m + (1 - decay) * x
        return m, m

    _, ms = jax.lax.scan(step, jnp.zeros(xs.shape[1:], xs.dtype), xs)
    if debias:
        t = jnp.arange(xs.shape[0], dtype=xs.dtype)
        correction = 1 - jnp.power(decay, t)
        ms = ms / correction.reshape((-1,) + (1,) * (xs.ndim - 1))
    return ms


def ema_with_resets(xs: jax.Array, resets: jax.Array, decay) -> jax.Array:
    """xs: (T, ...), resets: (T,) bool -> (T, ...) EMA restarted at resets."""

    def step(m, inputs):
        x, reset = inputs
        m = jnp.where(reset, x, decay * m + (1 - decay) * x)
        return m, m

    _, ms = jax.lax.scan(step, jnp.zeros(xs.shape[1:], xs.dtype), (xs, resets))
    return ms
