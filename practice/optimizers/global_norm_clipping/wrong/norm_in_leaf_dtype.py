"""Sums the squares in each leaf's own dtype (bfloat16 stays bfloat16).

Caught by: test_bfloat16_tree_norm_accumulates_in_float32
"""

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp

PyTree = Any


def global_norm(tree: PyTree) -> jax.Array:
    """sqrt of the sum of squares of every leaf of tree -> float32 scalar."""
    squares = [jnp.sum(jnp.square(leaf)) for leaf in jax.tree.leaves(tree)]
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
        norm = global_norm(grads)
        # a traced bool under jit: choose with where, not with `if`
        keep = norm < max_norm
        # When keep is True the scale is 1; the safe denominator avoids 0/0 for
        # zero grads.
        scale = jnp.where(keep, 1.0, max_norm / jnp.where(keep, 1.0, norm))
        clipped = jax.tree.map(lambda g: (g * scale).astype(g.dtype), grads)
        return clipped, state

    return init, update
