"""Mixed Precision with Loss Scaling: reference solution."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

LossFn = Callable[[Any, Any], jax.Array]


class LossScaleState(NamedTuple):
    scale: jax.Array  # float32 scalar, the current loss scale S
    # int32 scalar, finite steps since the scale last changed
    good_steps: jax.Array


def _to_half(tree):
    """Cast the floating-point leaves of a pytree to float16, leave the others
    alone."""

    def cast(x):
        x = jnp.asarray(x)
        return (
            x.astype(jnp.float16)
            if jnp.issubdtype(x.dtype, jnp.floating)
            else x
        )

    return jax.tree.map(cast, tree)


def scaled_grads(
    loss_fn: LossFn, params: Any, batch: Any, scale
) -> tuple[Any, jax.Array]:
    """float32 params -> (float32 grads of the float16 loss, all-finite
    flag)."""
    scale = jnp.asarray(scale, jnp.float32)

    def scaled_loss(half_params):  # the scale stays float32
        loss = loss_fn(half_params, _to_half(batch))
        return loss.astype(jnp.float32) * scale

    half_grads = jax.grad(scaled_loss)(_to_half(params))
    grads = jax.tree.map(lambda g: g.astype(jnp.float32) / scale, half_grads)
    finite = jnp.all(
        jnp.array([jnp.all(jnp.isfinite(g)) for g in jax.tree.leaves(grads)])
    )
    return grads, finite


def update_loss_scale(
    state: LossScaleState,
    finite,
    *,
    growth_interval: int = 2000,
    factor: float = 2.0,
    min_scale: float = 1.0,
) -> LossScaleState:
    """Halve on overflow, grow after growth_interval finite steps in a row."""
    good = state.good_steps + 1
    grow = good >= growth_interval
    scale_if_finite = jnp.where(grow, state.scale * factor, state.scale)
    good_if_finite = jnp.where(grow, 0, good)
    scale_if_overflow = jnp.maximum(state.scale / factor, min_scale)
    return LossScaleState(
        scale=jnp.where(finite, scale_if_finite, scale_if_overflow).astype(
            state.scale.dtype
        ),
        good_steps=jnp.where(finite, good_if_finite, 0).astype(
            state.good_steps.dtype
        ),
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
    """SGD on float32 master weights; the step is skipped when the float16
    gradients overflow."""
    grads, finite = scaled_grads(loss_fn, params, batch, state.scale)
    new_params = jax.tree.map(
        lambda p, g: jnp.where(finite, p - lr * g, p), params, grads
    )
    return new_params, update_loss_scale(
        state, finite, growth_interval=growth_interval
    )
