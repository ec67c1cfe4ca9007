"""PRNG Key Splitting.

A JAX key is a value, not a hidden global state: the same key always gives the
same numbers. Every random draw needs its own key, made with
``jax.random.split``. Using a key twice is a bug that
``jax.debug_key_reuse(True)`` turns into a ``KeyReuseError``; the tests run
with it on.

All keys are typed keys, made with ``jax.random.key(seed)``. The exact recipes
below fix which key feeds which draw, so the results are reproducible to the
last bit.
"""

from collections.abc import Sequence

import jax
import jax.numpy as jnp


def init_mlp(
    key: jax.Array, sizes: Sequence[int]
) -> list[tuple[jax.Array, jax.Array]]:
    """Random parameters of an MLP with layer widths ``(d0, d1, ..., dL)``.

    sizes = (d0, ..., dL) with L >= 1. Returns a list of L float32 pairs
    ``(w, b)``, w: (d_i, d_{i+1}), b: (d_{i+1},).
    Recipe (follow it exactly):

        layer_keys = jax.random.split(key, L)
        for layer i:  w_key, b_key = jax.random.split(layer_keys[i])
                      w = jax.random.normal(w_key, (d_i, d_{i+1})) / sqrt(d_i)
                      b = 0.01 * jax.random.normal(b_key, (d_{i+1},))

    No key may be used twice. ``sizes`` is a tuple or list of Python ints.
    """
    raise NotImplementedError(
        "init_mlp: split the key once per layer, then once more for (w, b)"
    )


def dropout(key: jax.Array, x: jax.Array, rate) -> jax.Array:
    """Inverted dropout: zero random entries of x, rescale the kept ones.

    x: any shape, float32; rate: scalar in [0, 1), may be traced.

        keep = jax.random.bernoulli(key, 1 - rate, x.shape)
        out = x / (1 - rate) where keep, 0 elsewhere

    Same shape and dtype as x; rate = 0 returns x unchanged.
    """
    raise NotImplementedError(
        "dropout: draw a Bernoulli keep-mask with the key, rescale kept "
        "entries"
    )


def random_walk(key: jax.Array, n_steps: int, start: float = 0.0) -> jax.Array:
    """Positions of a Gaussian random walk: n_steps >= 1 -> (n_steps,) float32.

    Recipe: position = start; then n_steps times:
        key, subkey = jax.random.split(key)
        position = position + jax.random.normal(subkey, ())
    and the output holds the position after each step.
    """
    raise NotImplementedError(
        "random_walk: carry the key, split off a fresh subkey every step"
    )
