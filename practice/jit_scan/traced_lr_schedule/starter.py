"""Traced Learning Rate Schedule.

Inside a jitted training step the step counter is a traced integer, so a
schedule written with Python ``if step < warmup_steps:`` fails. Write linear
warmup followed by cosine decay with array operations only, so the same
function works eagerly, under ``jax.jit`` and inside ``lax.scan``. It must
match ``optax.warmup_cosine_decay_schedule``.
"""

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
    """Return ``schedule(step) -> learning rate``.

    The hyperparameters are Python numbers, checked here: raise ``ValueError``
    unless ``0 <= warmup_steps < decay_steps``. ``peak_value`` is nonzero.

    schedule(step): step is an integer scalar or array of any shape (a Python
    int or an int32 array, possibly traced); returns float32 of the same
    shape. Elementwise, with T = decay_steps - warmup_steps:

    step < warmup_steps (linear warmup):
        init_value + (peak_value - init_value) * step / warmup_steps
    warmup_steps <= step <= decay_steps (cosine decay over T steps):
        end_value + (peak_value - end_value)
                  * 0.5 * (1 + cos(pi * (step - warmup_steps) / T))
    step > decay_steps:
        end_value

    (So ``decay_steps`` counts the warmup too, as in optax.) The schedule must
    not use Python control flow on ``step``.
    """
    raise NotImplementedError(
        "warmup_cosine_schedule: validate, then return a function built on "
        "jnp.where"
    )
