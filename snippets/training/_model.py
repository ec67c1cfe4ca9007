"""The training page's model: a 1 -> 32 -> 1 tanh MLP for a noisy sine."""

import jax
import jax.numpy as jnp


def make_data(key, n=256):
    """Noisy sine. -> x: (n, 1) in [-2, 2], y: (n, 1) = sin(2x) + noise."""
    key_x, key_noise = jax.random.split(key)
    x = jax.random.uniform(key_x, (n, 1), minval=-2.0, maxval=2.0)
    y = jnp.sin(2.0 * x) + 0.1 * jax.random.normal(key_noise, (n, 1))
    return x, y


def init_params(key, sizes=(1, 32, 1)):
    """Layers {"w": (d_in, d_out), "b": (d_out,)}, w scaled by 1/sqrt(d_in)."""
    keys = jax.random.split(key, len(sizes) - 1)
    return [
        {
            "w": jax.random.normal(k, (d_in, d_out)) / jnp.sqrt(d_in),
            "b": jnp.zeros(d_out),
        }
        for k, d_in, d_out in zip(keys, sizes[:-1], sizes[1:])
    ]


def mlp(params, x):
    """x: (n, d_in) -> (n, d_out); tanh between layers, linear output."""
    for layer in params[:-1]:
        x = jnp.tanh(x @ layer["w"] + layer["b"])
    return x @ params[-1]["w"] + params[-1]["b"]


def loss_fn(params, x, y):
    """Mean squared error. x: (n, d_in), y: (n, d_out) -> scalar."""
    return jnp.mean((mlp(params, x) - y) ** 2)


def decay_mask(params):
    """Where weight decay applies: True for matrices "w", False for biases."""
    return jax.tree.map(lambda p: p.ndim > 1, params)
