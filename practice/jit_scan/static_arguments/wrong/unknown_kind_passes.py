"""Leaves x unchanged for an unknown kind instead of raising ValueError.

Caught by: test_normalize_rows_unknown_kind
"""

from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames="degree")
def poly_features(x: jax.Array, degree: int) -> jax.Array:
    """x: (n,) -> (n, degree + 1), out[i, k] = x[i] ** k; degree static."""
    # a concrete shape: degree is a Python int here
    powers = jnp.arange(degree + 1)
    return x[:, None] ** powers


@partial(jax.jit, static_argnames="kind")
def normalize_rows(x: jax.Array, kind: str) -> jax.Array:
    """x: (n, d) -> (n, d), each row over its norm; zero rows unchanged."""
    if kind == "l1":  # a Python if on a static string: allowed
        norms = jnp.sum(jnp.abs(x), axis=1, keepdims=True)
    elif kind == "l2":
        norms = jnp.sqrt(jnp.sum(x**2, axis=1, keepdims=True))
    elif kind == "max":
        norms = jnp.max(jnp.abs(x), axis=1, keepdims=True)
    else:
        norms = jnp.ones((x.shape[0], 1), x.dtype)
    return x / jnp.where(norms == 0, 1.0, norms)
