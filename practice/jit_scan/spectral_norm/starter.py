"""Spectral Norm by Power Iteration.

The spectral norm of a matrix (its largest singular value) bounds how much the
layer can stretch its input; spectral normalisation divides a weight matrix by
it to keep a network Lipschitz, as in SN-GAN. A full SVD is expensive; a few
steps of power iteration, written as a ``jax.lax.fori_loop``, are cheap.
Implement it and check it against ``jnp.linalg.norm(w, ord=2)``.
"""

import jax
import jax.numpy as jnp


def power_iteration(
    w: jax.Array, key: jax.Array, n_iters: int = 100
) -> tuple[jax.Array, jax.Array, jax.Array]:
    """Top singular triple ``(sigma, u, v)`` of ``w``: ``w @ v ~= sigma * u``.

    w: (m, n) float32; key: a ``jax.random.key`` for the start vector;
    n_iters: int >= 0. Recipe, with normalize(x) = x / max(||x||, 1e-12):

        v = normalize(jax.random.normal(key, (n,)))
        n_iters times:  u = normalize(w @ v);  v = normalize(w.T @ u)
        return sigma = ||w @ v||, u = normalize(w @ v), v

    sigma is a float32 scalar, u: (m,), v: (n,). An all-zero ``w`` gives
    sigma = 0 and no nan. The loop must be a ``jax.lax.fori_loop`` (or
    ``scan``): the traced program may not grow with ``n_iters``.
    """
    raise NotImplementedError(
        "power_iteration: a fori_loop of the two normalize steps"
    )


def spectral_normalize(
    w: jax.Array, key: jax.Array, n_iters: int = 100
) -> jax.Array:
    """Divide ``w`` by its spectral norm, estimated by ``power_iteration``.

    w: (m, n) float32 -> (m, n) float32:

        w / max(sigma, 1e-12),  sigma = power_iteration(w, key, n_iters)[0]

    Its spectral norm is then about 1; an all-zero w stays zero.
    """
    raise NotImplementedError(
        "spectral_normalize: divide w by the estimated sigma"
    )
