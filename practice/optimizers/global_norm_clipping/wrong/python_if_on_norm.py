"""Branches with a Python if on the norm (a tracer under jax.jit).

Caught by: test_under_jit_with_traced_norm,
    test_zero_gradient_gives_zeros_not_nan
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
        norm = global_norm(grads)
        # a traced bool under jit: choose with where, not with `if`
        if norm < max_norm:
            return grads, state
        scale = max_norm / norm
        clipped = jax.tree.map(lambda g: (g * scale).astype(g.dtype), grads)
        return clipped, state

    return init, update
