"""A nearly fitted linear model: its residuals and gradients are tiny."""

import jax
import jax.numpy as jnp


def loss(w, x, y):
    """MSE of a 1-parameter model. w: (), x: (n,), y: (n,) -> ()."""
    return jnp.mean(0.5 * (x * w - y) ** 2)


x = jax.random.uniform(jax.random.key(0), (4096,), minval=0.005, maxval=0.015)
y = 0.99 * x  # the best w is 0.99; we evaluate at w = 1
w = jnp.array(1.0)
