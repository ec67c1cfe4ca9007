"""Takes jnp.sqrt of the squared distance: nan gradient at x == y.

Caught by: test_euclidean_gradient_is_zero_not_nan_at_equal_points,
    test_gradient_of_self_distances_is_finite_and_correct
"""

from collections.abc import Callable

import jax
import jax.numpy as jnp


def euclidean(x: jax.Array, y: jax.Array) -> jax.Array:
    """||x - y|| for x, y: (D,) -> scalar; gradient 0 (not nan) at x == y."""
    d2 = jnp.sum((x - y) ** 2)
    return jnp.sqrt(d2)


def pairwise(
    metric: Callable[[jax.Array, jax.Array], jax.Array],
    xs: jax.Array,
    ys: jax.Array,
) -> jax.Array:
    """out[i, j] = metric(xs[i], ys[j]). xs: (N, D), ys: (M, D) -> (N, M)."""
    one_to_many = jax.vmap(metric, in_axes=(None, 0))  # (D,), (M, D) -> (M,)
    # (N, D), (M, D) -> (N, M)
    many_to_many = jax.vmap(one_to_many, in_axes=(0, None))
    return many_to_many(xs, ys)


def pairwise_distances(xs: jax.Array, ys: jax.Array) -> jax.Array:
    """xs: (N, D), ys: (M, D) -> (N, M) Euclidean distances."""
    return pairwise(euclidean, xs, ys)
