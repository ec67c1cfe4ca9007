"""Hessian-Vector Product.

The Hessian of a function of n parameters has n * n entries: for a model with a
million parameters that is 4 TB in float32. Yet the product of the Hessian with
one vector costs about as much as two gradient evaluations. Write it without
ever forming the Hessian, then use it to estimate the sharpness of a loss (its
eigenvalue of largest magnitude) by power iteration.
"""

from collections.abc import Callable

import jax
import jax.numpy as jnp


def hvp(f: Callable, params, v):
    """Hessian of ``f`` at ``params`` times ``v``.

    f: a function from a pytree of float32 arrays to a float32 scalar (twice
    differentiable). params, v: pytrees of the same structure, shapes and
    dtypes (for example two (n,) arrays). Returns a pytree like ``params``:
    ``H v``, where ``H`` is the Hessian of ``f`` at ``params`` with the leaves
    flattened and concatenated. Must not build the Hessian (no (n, n) array in
    the computation) and must work under ``jax.jit``.
    """
    raise NotImplementedError(
        "hvp: differentiate the gradient of f in the direction v"
    )


def sharpness(
    f: Callable, x: jax.Array, key: jax.Array, n_iters: int = 100
) -> jax.Array:
    """The Hessian eigenvalue of largest magnitude of ``f`` at ``x``, signed.

    x: (n,) float32; key: a ``jax.random.key`` for the start vector; n_iters:
    Python int. Power iteration with ``hvp``, from a random unit vector u:

        n_iters times:  u <- H u / ||H u||
        return the Rayleigh quotient u . (H u), a float32 scalar

    Must not build the Hessian.
    """
    raise NotImplementedError(
        "sharpness: power iteration on u -> hvp(f, x, u)"
    )
