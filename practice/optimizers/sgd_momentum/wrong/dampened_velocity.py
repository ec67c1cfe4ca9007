"""Averages instead of accumulating: v = momentum * v + (1 - momentum) * g.

Caught by: test_hand_computed_three_steps, test_matches_optax_sgd,
    test_matches_optax_under_jit
"""

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp

PyTree = Any


def sgd_momentum(
    learning_rate: float, momentum: float = 0.9, nesterov: bool = False
) -> tuple[Callable, Callable]:
    """(init, update) for SGD with momentum; state: velocity like params."""

    def init(params: PyTree) -> PyTree:
        """Zero velocity with the structure, shapes and dtypes of params."""
        return jax.tree.map(jnp.zeros_like, params)

    def update(
        grads: PyTree, state: PyTree, params: PyTree = None
    ) -> tuple[PyTree, PyTree]:
        """grads, state -> (updates, new velocity); params is not needed."""
        velocity = jax.tree.map(
            lambda g, v: (1 - momentum) * g + momentum * v, grads, state
        )
        if nesterov:  # a Python bool fixed when the optimizer is built
            direction = jax.tree.map(
                lambda g, v: g + momentum * v, grads, velocity
            )
        else:
            direction = velocity
        updates = jax.tree.map(lambda d: -learning_rate * d, direction)
        return updates, velocity

    return init, update
