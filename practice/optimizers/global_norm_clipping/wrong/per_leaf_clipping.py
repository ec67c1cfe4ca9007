"""Clips every leaf by its own norm instead of the global norm.

Caught by: test_clip_hand_values, test_direction_kept_and_norm_equals_max,
    test_matches_optax
"""

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp

PyTree = Any


def global_norm(tree: PyTree) -> jax.Array:
    """sqrt of the sum of squares of every leaf of tree -> float32 scalar."""
    squares = [
        jnp.sum(jnp.square(leaf.astype(jnp.float32)))
        for leaf in jax.tree.leaves(tree)
    ]
    return jnp.sqrt(sum(squares))


def clip_by_global_norm(max_norm: float) -> tuple[Callable, Callable]:
    """(init, update) rescaling grads to global norm <= max_norm; state ()."""

    def init(params: PyTree) -> tuple:
        """No state to keep."""
        return ()

    def update(
        grads: PyTree, state: tuple, params: PyTree = None
    ) -> tuple[PyTree, tuple]:
        """grads -> grads scaled by min(1, max_norm / global_norm(grads))."""

        def clip(g):
            norm = global_norm(g)
            keep = norm < max_norm
            scale = jnp.where(keep, 1.0, max_norm / jnp.where(keep, 1.0, norm))
            return (g * scale).astype(g.dtype)

        clipped = jax.tree.map(clip, grads)
        return clipped, state

    return init, update
