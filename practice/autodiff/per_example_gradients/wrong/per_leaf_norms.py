"""Clips every leaf by its own norm instead of the example's global norm.

Caught by: test_clipping_matches_numpy_on_random_batch,
    test_clipping_uses_the_global_norm_across_leaves
"""

from collections.abc import Callable

import jax
import jax.numpy as jnp


def per_example_grads(loss_fn: Callable, params, xs: jax.Array, ys: jax.Array):
    """xs: (B, ...), ys: (B, ...) -> params-like tree, leaves (B, ...)."""
    return jax.vmap(jax.grad(loss_fn), in_axes=(None, 0, 0))(params, xs, ys)


def global_norms(grads) -> jax.Array:
    """Tree of (B, ...) leaves -> (B,) global L2 norm of each example."""
    squares = [
        jnp.sum(g.reshape(g.shape[0], -1) ** 2, axis=1)
        for g in jax.tree.leaves(grads)
    ]
    return jnp.sqrt(sum(squares))


def clipped_mean_grad(
    loss_fn: Callable, params, xs: jax.Array, ys: jax.Array, max_norm: float
):
    """-> tree like params: mean of per-example grads clipped to max_norm."""
    grads = per_example_grads(loss_fn, params, xs, ys)

    def clip_and_average(g):
        scale = max_norm / jnp.maximum(global_norms([g]), max_norm)
        return jnp.mean(g * scale.reshape((-1,) + (1,) * (g.ndim - 1)), axis=0)

    return jax.tree.map(clip_and_average, grads)
