"""Pairwise Distances with Nested vmap.

Write a distance between two vectors, then lift it to all pairs of rows of two
matrices with two nested ``jax.vmap`` calls, without broadcasting by hand.
"""

from collections.abc import Callable

import jax
import jax.numpy as jnp


def euclidean(x: jax.Array, y: jax.Array) -> jax.Array:
    """Euclidean distance ||x - y||. x, y: (D,) float32 -> scalar.

    Must be safe to differentiate at x == y: the value there is exactly 0.0 and
    the gradient with respect to x and y is 0 (not nan).
    """
    raise NotImplementedError(
        "euclidean: sqrt of the squared distance, safe at zero"
    )


def pairwise(
    metric: Callable[[jax.Array, jax.Array], jax.Array],
    xs: jax.Array,
    ys: jax.Array,
) -> jax.Array:
    """out[i, j] = metric(xs[i], ys[j]). xs: (N, D), ys: (M, D) -> (N, M).

    ``metric`` maps two (D,) vectors to a scalar. Use two nested ``jax.vmap``
    calls.
    """
    raise NotImplementedError("pairwise: vmap over ys inside a vmap over xs")


def pairwise_distances(xs: jax.Array, ys: jax.Array) -> jax.Array:
    """Distances between all rows. xs: (N, D), ys: (M, D) -> (N, M)."""
    raise NotImplementedError(
        "pairwise_distances: combine the two functions above"
    )
