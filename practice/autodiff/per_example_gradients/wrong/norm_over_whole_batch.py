"""Sums the squares over the whole batch: one norm, not one per example.

Caught by: test_clipping_by_hand, test_clipping_matches_numpy_on_random_batch
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
        jnp.sum(g**2) * jnp.ones(g.shape[0]) for g in jax.tree.leaves(grads)
    ]
    return jnp.sqrt(sum(squares))


def clipped_mean_grad(
    loss_fn: Callable, params, xs: jax.Array, ys: jax.Array, max_norm: float
):
    """-> tree like params: mean of per-example grads clipped to max_norm."""
    grads = per_example_grads(loss_fn, params, xs, ys)
    norms = global_norms(grads)
    # min(1, max_norm / n) written so that n = 0 gives 1, not inf or nan.
    scale = max_norm / jnp.maximum(norms, max_norm)

    def clip_and_average(g):
        return jnp.mean(g * scale.reshape((-1,) + (1,) * (g.ndim - 1)), axis=0)

    return jax.tree.map(clip_and_average, grads)
