"""Builds the full Hessian with jax.hessian and multiplies it by v.

Caught by: test_jits_and_never_builds_the_hessian, test_pytree_params,
    test_sharpness_matches_eigvalsh_and_never_builds_the_hessian
"""

from collections.abc import Callable

import jax
import jax.numpy as jnp


def hvp(f: Callable, params, v):
    """params, v: pytrees alike -> H(params) v (forward-over-reverse)."""
    return jax.hessian(f)(params) @ v


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
