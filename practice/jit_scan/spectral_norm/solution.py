"""Spectral Norm by Power Iteration: reference solution."""

import jax
import jax.numpy as jnp


def normalize(x: jax.Array) -> jax.Array:
    """x: (k,) -> x / ||x||, with zero vectors left at zero."""
    return x / jnp.maximum(jnp.linalg.norm(x), 1e-12)


def power_iteration(
    w: jax.Array, key: jax.Array, n_iters: int = 100
) -> tuple[jax.Array, jax.Array, jax.Array]:
    """w: (m, n) -> (sigma, u: (m,), v: (n,)), top singular triple estimate."""
    v = normalize(jax.random.normal(key, (w.shape[1],), w.dtype))

    def step(_, v):
        u = normalize(w @ v)
        return normalize(w.T @ u)

    v = jax.lax.fori_loop(0, n_iters, step, v)
    wv = w @ v
    return jnp.linalg.norm(wv), normalize(wv), v


def spectral_normalize(
    w: jax.Array, key: jax.Array, n_iters: int = 100
) -> jax.Array:
    """w: (m, n) -> (m, n) with spectral norm ~ 1."""
    sigma, _, _ = power_iteration(w, key, n_iters)
    return w / jnp.maximum(sigma, 1e-12)
