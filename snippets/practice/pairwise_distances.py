import jax
import jax.numpy as jnp

from practice.vectorization.pairwise_distances.solution import (
    euclidean,
    pairwise,
    pairwise_distances,
)

xs = jnp.array([[0.0, 0.0], [3.0, 4.0], [6.0, 8.0]])  # (N=3, D=2)
ys = jnp.array([[0.0, 0.0], [0.0, 4.0]])  # (M=2, D=2)
print("pairwise_distances(xs, ys):\n", pairwise_distances(xs, ys))
print("pairwise(jnp.dot, xs, ys):\n", pairwise(jnp.dot, xs, ys))


def naive_euclidean(x, y):
    """||x - y|| straight through jnp.sqrt. x, y: (D,) -> scalar."""
    return jnp.sqrt(jnp.sum((x - y) ** 2))


def single_where_euclidean(x, y):
    """Masks the output only: sqrt still sees 0. x, y: (D,) -> scalar."""
    d2 = jnp.sum((x - y) ** 2)
    return jnp.where(d2 > 0, jnp.sqrt(d2), 0.0)


x = jnp.array([1.0, 2.0])
print("naive gradient at x == y:       ", jax.grad(naive_euclidean)(x, x))
print(
    "single-where gradient at x == y:", jax.grad(single_where_euclidean)(x, x)
)
print("safe gradient at x == y:        ", jax.grad(euclidean)(x, x))
