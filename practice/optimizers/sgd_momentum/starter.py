"""SGD with Momentum over a Pytree.

An Optax-style optimizer: a pair of pure functions ``init(params) -> state``
and ``update(grads, state, params) -> (updates, new_state)`` that work on any
pytree of arrays (nested dicts, lists, tuples). The caller applies the updates:
``params + updates`` leaf by leaf.
"""

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp

PyTree = Any


def sgd_momentum(
    learning_rate: float, momentum: float = 0.9, nesterov: bool = False
) -> tuple[Callable, Callable]:
    """(init, update) for SGD with heavy-ball or Nesterov momentum.

    init(params) -> state
        state: a pytree with the structure of params, every leaf zeros_like the
        param (the velocity).
    update(grads, state, params=None) -> (updates, new_state)
        For every leaf, with g the gradient and v the velocity:
            v_new = g + momentum * v
        and with nesterov=False (heavy ball):
            updates = -learning_rate * v_new
        or with nesterov=True (look ahead along the new velocity):
            updates = -learning_rate * (g + momentum * v_new)
        new_state holds v_new in both cases. grads, updates and states have
        the structure of params.

    Both functions are pure (no Python-side state) and work under ``jax.jit``.
    """
    raise NotImplementedError(
        "sgd_momentum: define init and update with jax.tree.map"
    )
