"""Forgets the bias correction: divides the raw moments, not mu_hat, nu_hat.

Caught by: test_first_step_by_hand, test_matches_optax_adamw
"""

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp

PyTree = Any


def adamw(
    learning_rate: float,
    b1: float = 0.9,
    b2: float = 0.999,
    eps: float = 1e-8,
    weight_decay: float = 1e-4,
) -> tuple[Callable, Callable]:
    """(init, update) for AdamW; state = {"count", "mu", "nu"}."""

    def init(params: PyTree) -> dict:
        """Zero moments shaped like params and a step counter."""

        def zeros():
            return jax.tree.map(jnp.zeros_like, params)

        return {
            "count": jnp.zeros((), jnp.int32),
            "mu": zeros(),
            "nu": zeros(),
        }

    def update(
        grads: PyTree, state: dict, params: PyTree
    ) -> tuple[PyTree, dict]:
        """grads, state, params -> (updates, new state)."""
        count = state["count"] + 1
        mu = jax.tree.map(
            lambda m, g: b1 * m + (1 - b1) * g, state["mu"], grads
        )
        nu = jax.tree.map(
            lambda v, g: b2 * v + (1 - b2) * g * g, state["nu"], grads
        )
        # Bias corrections: the moments start at zero, so early averages are
        # too small.
        c1 = 1 - b1 ** count.astype(jnp.float32)
        c2 = 1 - b2 ** count.astype(jnp.float32)

        def leaf_update(m, v, p):
            adam_step = m / (jnp.sqrt(v) + eps)
            return -learning_rate * (adam_step + weight_decay * p)

        updates = jax.tree.map(leaf_update, mu, nu, params)
        return updates, {"count": count, "mu": mu, "nu": nu}

    return init, update
