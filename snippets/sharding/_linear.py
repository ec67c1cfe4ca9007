"""A linear regression problem shared by the data-parallel snippets."""

import jax
import jax.numpy as jnp


def make_data(key, n=64, d=4):
    """Noisy linear targets. -> x: (n, d), y: (n,)."""
    kx, kn = jax.random.split(key)
    x = jax.random.normal(kx, (n, d))
    w_true = jnp.arange(1.0, d + 1)
    return x, x @ w_true + 0.1 * jax.random.normal(kn, (n,))


def loss(params, x, y):
    """Mean squared error.

    params: {"w": (d,), "b": ()}, x: (n, d), y: (n,) -> ().
    """
    pred = x @ params["w"] + params["b"]
    return jnp.mean((pred - y) ** 2)
