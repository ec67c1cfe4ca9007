"""Traced Learning Rate Schedule: reference solution."""

from collections.abc import Callable

import jax
import jax.numpy as jnp


def warmup_cosine_schedule(
    init_value: float,
    peak_value: float,
    warmup_steps: int,
    decay_steps: int,
    end_value: float = 0.0,
) -> Callable[[jax.Array], jax.Array]:
    """Hyperparameters -> schedule(step: int array) -> float32, same shape."""
    if not 0 <= warmup_steps < decay_steps:
        raise ValueError(
            f"need 0 <= warmup_steps < decay_steps, got {warmup_steps=}, "
            f"{decay_steps=}"
        )
    cosine_steps = decay_steps - warmup_steps

    def schedule(step: jax.Array) -> jax.Array:
        step = jnp.asarray(step, dtype=jnp.float32)
        # a negative step is step 0 of the warmup (init_value, as in optax);
        # max(warmup_steps, 1) avoids 0 / 0 when there is no warmup
        warm = init_value + (peak_value - init_value) * jnp.maximum(
            step, 0
        ) / max(warmup_steps, 1)
        t = jnp.clip(step - warmup_steps, 0, cosine_steps) / cosine_steps
        cosine = end_value + (peak_value - end_value) * 0.5 * (
            1 + jnp.cos(jnp.pi * t)
        )
        return jnp.where(step < warmup_steps, warm, cosine)

    return schedule
