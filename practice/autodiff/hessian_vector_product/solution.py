"""Hessian-Vector Product: reference solution."""

from collections.abc import Callable

import jax
import jax.numpy as jnp


def hvp(f: Callable, params, v):
    """params, v: pytrees alike -> H(params) v (forward-over-reverse)."""
    return jax.jvp(jax.grad(f), (params,), (v,))[1]


def sharpness(
    f: Callable, x: jax.Array, key: jax.Array, n_iters: int = 100
) -> jax.Array:
    """x: (n,) -> scalar: top-magnitude Hessian eigenvalue, power iteration."""
    u = jax.random.normal(key, x.shape)
    u = u / jnp.linalg.norm(u)

    def step(_, u):
        hu = hvp(f, x, u)
        norm = jnp.linalg.norm(hu)
        # H u = 0 (a zero Hessian): keep u, whose Rayleigh quotient is then 0
        return jnp.where(norm > 0, hu / norm, u)

    u = jax.lax.fori_loop(0, n_iters, step, u)
    return jnp.dot(u, hvp(f, x, u))
