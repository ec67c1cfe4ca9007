"""Splits a new key off per layer (key, k = split(key)), not split(key, L).

Caught by: test_init_mlp_follows_the_recipe
"""

from collections.abc import Sequence

import jax
import jax.numpy as jnp


def init_layer(
    key: jax.Array, d_in: int, d_out: int
) -> tuple[jax.Array, jax.Array]:
    """One dense layer: w: (d_in, d_out) / sqrt(d_in), b: (d_out,) small."""
    w_key, b_key = jax.random.split(key)
    w = jax.random.normal(w_key, (d_in, d_out)) / jnp.sqrt(d_in)
    b = 0.01 * jax.random.normal(b_key, (d_out,))
    return w, b


def init_mlp(
    key: jax.Array, sizes: Sequence[int]
) -> list[tuple[jax.Array, jax.Array]]:
    """sizes (d0, ..., dL) -> L pairs (w: (d_i, d_{i+1}), b: (d_{i+1},))."""
    params = []
    for d_in, d_out in zip(sizes[:-1], sizes[1:]):
        key, k = jax.random.split(key)
        params.append(init_layer(k, d_in, d_out))
    return params


def dropout(key: jax.Array, x: jax.Array, rate) -> jax.Array:
    """x -> same shape: each entry kept with probability 1 - rate, rescaled."""
    keep = jax.random.bernoulli(key, 1.0 - rate, x.shape)
    return jnp.where(keep, x / (1.0 - rate), 0.0).astype(x.dtype)


def random_walk(key: jax.Array, n_steps: int, start: float = 0.0) -> jax.Array:
    """-> (n_steps,) float32: the position after each Gaussian step."""
    position = jnp.float32(start)
    positions = []
    for _ in range(n_steps):
        key, subkey = jax.random.split(key)
        position = position + jax.random.normal(subkey, ())
        positions.append(position)
    return jnp.stack(positions)
