"""Approximates H v by central differences of the gradient.

Caught by: test_linear_in_v, test_matches_jax_hessian, test_quadratic_by_hand
"""

from collections.abc import Callable

import jax
import jax.numpy as jnp


def hvp(f: Callable, params, v):
    """params, v: pytrees alike -> H(params) v (forward-over-reverse)."""
    h = 1e-3
    g = jax.grad(f)
    plus = g(jax.tree.map(lambda p, d: p + h * d, params, v))
    minus = g(jax.tree.map(lambda p, d: p - h * d, params, v))
    return jax.tree.map(lambda a, b: (a - b) / (2 * h), plus, minus)


def sharpness(
    f: Callable, x: jax.Array, key: jax.Array, n_iters: int = 100
) -> jax.Array:
    """x: (n,) -> scalar: top-magnitude Hessian eigenvalue, power iteration."""
    u = jax.random.normal(key, x.shape)
    u = u / jnp.linalg.norm(u)

    def step(_, u):
        hu = hvp(f, x, u)
        return hu / jnp.linalg.norm(hu)

    u = jax.lax.fori_loop(0, n_iters, step, u)
    return jnp.dot(u, hvp(f, x, u))
