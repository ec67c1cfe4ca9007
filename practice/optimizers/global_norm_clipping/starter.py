"""Global Norm Gradient Clipping.

Rescale a whole gradient pytree so that its global L2 norm is at most
``max_norm``. Written as an Optax-style gradient transformation:

    init(params) -> state
    update(grads, state, params=None) -> (clipped_grads, state)
"""

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp

PyTree = Any


def global_norm(tree: PyTree) -> jax.Array:
    """L2 norm of all leaves together, as a float32 scalar:

        sqrt(sum over leaves of sum(leaf ** 2))

    Accumulate in float32, also when some leaves are bfloat16.
    """
    raise NotImplementedError("global_norm: sum the squares of every leaf")


def clip_by_global_norm(max_norm: float) -> tuple[Callable, Callable]:
    """Return ``(init, update)`` for clipping by global norm.

    init(params) -> ()
        The transformation is stateless: its state is the empty tuple.
    update(grads, state, params=None) -> (clipped, state)
        With n = global_norm(grads), every leaf scaled by the same factor:
            clipped = grads                     if n < max_norm
            clipped = grads * (max_norm / n)    otherwise
        Each clipped leaf keeps the shape and dtype of its gradient leaf. An
        all-zero gradient is returned unchanged (no nan). Must work under
        ``jax.jit`` (n is traced there).
    """
    raise NotImplementedError("clip_by_global_norm: define init and update")
