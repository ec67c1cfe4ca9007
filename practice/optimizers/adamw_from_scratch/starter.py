"""AdamW from Scratch.

Adam with decoupled weight decay (Loshchilov and Hutter), as an Optax-style
pair of pure functions over pytrees:

    init(params) -> state
    update(grads, state, params) -> (updates, new_state)
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
    """Return ``(init, update)`` for AdamW.

    init(params) -> state
        state = {"count": int32 scalar 0,
                 "mu": zeros like params,
                 "nu": zeros like params}
    update(grads, state, params) -> (updates, new_state)
        count_new = count + 1, then for every leaf (g gradient, p parameter):
            mu_new  = b1 * mu + (1 - b1) * g
            nu_new  = b2 * nu + (1 - b2) * g ** 2
            mu_hat  = mu_new / (1 - b1 ** count_new)
            nu_hat  = nu_new / (1 - b2 ** count_new)
            step    = mu_hat / (sqrt(nu_hat) + eps)
            updates = -learning_rate * (step + weight_decay * p)
        The decay term uses the parameters, not the gradients ("decoupled").
        updates, mu and nu have the structure of params. Pure, and works under
        ``jax.jit`` (count is an array).
    """
    raise NotImplementedError("adamw: define init and update")
