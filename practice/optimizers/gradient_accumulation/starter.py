"""Gradient Accumulation with Scan.

When a batch does not fit in memory, split it into micro-batches, compute the
gradient of each, and average. With ``lax.scan`` the loop is compiled once and
only one micro-batch is processed at a time.
"""

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp

PyTree = Any


def accumulate_gradients(
    loss_fn: Callable[[PyTree, PyTree], jax.Array],
    params: PyTree,
    batch: PyTree,
    num_micro_batches: int,
) -> tuple[jax.Array, PyTree]:
    """Mean loss and gradient over micro-batches, accumulated in a lax.scan.

    loss_fn(params, batch) -> float32 scalar, the MEAN loss over the examples
    of batch. batch: a pytree of arrays that all share the leading batch size
    B. num_micro_batches: a Python int k that divides B; raise ValueError
    otherwise.

    With m = B // k, micro-batch i holds examples i * m ... (i + 1) * m - 1
    of every leaf, and loss_fn is called on micro-batches only (leading size
    m). Returns (loss, grads):

        loss  = mean over the k micro-batches of loss_fn(params, micro)
        grads = mean over the k micro-batches of its gradient

    which equals ``jax.value_and_grad(loss_fn)(params, batch)`` for a mean
    loss. The gradient has the structure of params.
    """
    raise NotImplementedError(
        "accumulate_gradients: reshape to (k, B // k, ...) and scan"
    )
