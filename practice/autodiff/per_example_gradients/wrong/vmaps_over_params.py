"""Maps over every argument (in_axes=0), params included.

Caught by: test_linear_matches_closed_form,
    test_mean_of_per_example_is_batch_gradient,
    test_mlp_matches_a_loop_of_grads
"""

from collections.abc import Callable

import jax
import jax.numpy as jnp


def per_example_grads(loss_fn: Callable, params, xs: jax.Array, ys: jax.Array):
    """xs: (B, ...), ys: (B, ...) -> params-like tree, leaves (B, ...)."""
    return jax.vmap(jax.grad(loss_fn), in_axes=0)(params, xs, ys)


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
    norms = global_norms(grads)
    # min(1, max_norm / n) written so that n = 0 gives 1, not inf or nan.
    scale = max_norm / jnp.maximum(norms, max_norm)

    def clip_and_average(g):
        return jnp.mean(g * scale.reshape((-1,) + (1,) * (g.ndim - 1)), axis=0)

    return jax.tree.map(clip_and_average, grads)
