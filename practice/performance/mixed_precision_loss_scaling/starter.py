"""Mixed Precision with Loss Scaling.

Compute the loss and its gradient in float16 while keeping float32 master
weights. Small gradients underflow to zero in float16; multiplying the loss by
a scale S before differentiating (and dividing the gradients by S afterwards,
in float32) keeps them representable. Dynamic loss scaling adapts S: halve it
when the gradients overflow, double it after a run of good steps.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

# loss_fn(params, batch) -> scalar; called with float16 params and batch. Its
# backward pass starts from the float32 scale S: a loss reduced in float32
# (float16 terms, float32 mean) passes only S times each term's share through
# float16, so S may exceed 65504; a loss returned in float16 receives S itself.
LossFn = Callable[[Any, Any], jax.Array]


class LossScaleState(NamedTuple):
    scale: jax.Array  # float32 scalar, the current loss scale S
    # int32 scalar, finite steps since the scale last changed
    good_steps: jax.Array


def scaled_grads(
    loss_fn: LossFn, params: Any, batch: Any, scale
) -> tuple[Any, jax.Array]:
    """Gradients of ``loss_fn`` computed in float16 with loss scaling.

    params: pytree of float32 arrays (master weights); batch: pytree of arrays;
    scale: float32 scalar (Python float or array), any size: it is never cast
    to float16, so it may exceed float16's maximum 65504.
    Cast params and every floating-point leaf of batch (float32, bfloat16, ...)
    to float16 and leave integer leaves alone; cast the loss
    ``loss_fn(params16, batch16)`` to float32 and multiply it by ``scale`` in
    float32; differentiate that with respect to params16, cast the gradients
    to float32 and divide them by ``scale``. Returns ``(grads, finite)``:
    grads a pytree shaped like params, float32; finite a bool scalar, True iff
    every gradient entry is finite (no inf, no nan).
    """
    raise NotImplementedError(
        "scaled_grads: cast to float16, grad of loss * scale, unscale in "
        "float32"
    )


def update_loss_scale(
    state: LossScaleState,
    finite,
    *,
    growth_interval: int = 2000,
    factor: float = 2.0,
    min_scale: float = 1.0,
) -> LossScaleState:
    """Dynamic loss scaling.

    If not ``finite``: scale becomes ``max(scale / factor, min_scale)`` and
    good_steps 0. If ``finite``: good_steps + 1; when that reaches
    ``growth_interval``, scale becomes ``scale * factor`` and good_steps 0.
    ``finite`` may be a traced bool: no Python ``if`` on it. Keeps the dtypes
    of the state.
    """
    raise NotImplementedError(
        "update_loss_scale: jnp.where on finite and on the step counter"
    )


def train_step(
    loss_fn: LossFn,
    params: Any,
    state: LossScaleState,
    batch: Any,
    lr: float,
    *,
    growth_interval: int = 2000,
) -> tuple[Any, LossScaleState]:
    """One SGD step with dynamic loss scaling.

    Compute ``scaled_grads`` with ``state.scale``. If the gradients are finite,
    return ``params - lr * grads`` (float32); otherwise return params unchanged
    (skip the step). Update the state with ``update_loss_scale`` (default
    factor and min_scale). Works under ``jax.jit`` with traced params and
    state.
    """
    raise NotImplementedError(
        "train_step: scaled_grads, conditional update, update_loss_scale"
    )
