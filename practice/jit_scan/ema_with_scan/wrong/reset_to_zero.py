"""Resets the average to zero and then updates it, instead of to x.

Caught by: test_resets_hand_computed, test_resets_random_under_jit
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
        t = jnp.arange(1, xs.shape[0] + 1, dtype=xs.dtype)
        correction = 1 - jnp.power(decay, t)
        ms = ms / correction.reshape((-1,) + (1,) * (xs.ndim - 1))
    return ms


def ema_with_resets(xs: jax.Array, resets: jax.Array, decay) -> jax.Array:
    """xs: (T, ...), resets: (T,) bool -> (T, ...) EMA restarted at resets."""

    def step(m, inputs):
        x, reset = inputs
        m = jnp.where(reset, 0.0, m)
        m = decay * m + (1 - decay) * x
        return m, m

    _, ms = jax.lax.scan(step, jnp.zeros(xs.shape[1:], xs.dtype), (xs, resets))
    return ms
