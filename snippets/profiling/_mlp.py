"""A small tanh MLP shared by the timing snippets."""

import jax
import jax.numpy as jnp


def init_mlp(key, sizes):
    """Weights for sizes[0] -> sizes[1] -> ...: a list of (d_in, d_out)."""
    keys = jax.random.split(key, len(sizes) - 1)
    return [
        jax.random.normal(k, (m, n)) / jnp.sqrt(m)
        for k, m, n in zip(keys, sizes[:-1], sizes[1:])
    ]


def mlp(params, x):
    """tanh MLP.

    params: list of (d_in, d_out), x: (batch, sizes[0]) -> (batch, sizes[-1]).
    """
    for w in params:
        x = jnp.tanh(x @ w)
    return x
