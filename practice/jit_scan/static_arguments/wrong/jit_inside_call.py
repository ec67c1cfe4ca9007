"""Jits a fresh lambda inside every call, so nothing is ever cached.

Caught by: test_poly_features_is_jitted_with_static_degree,
    test_poly_features_retraces_only_for_a_new_degree
"""

from functools import partial

import jax
import jax.numpy as jnp


def poly_features(x: jax.Array, degree: int) -> jax.Array:
    """x: (n,) -> (n, degree + 1), out[i, k] = x[i] ** k; degree static."""
    # a concrete shape: degree is a Python int here
    powers = jnp.arange(degree + 1)
    return jax.jit(lambda x: x[:, None] ** powers)(x)


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
        raise ValueError(
            f"unknown norm kind {kind!r}; expected 'l1', 'l2' or 'max'"
        )
    return x / jnp.where(norms == 0, 1.0, norms)
