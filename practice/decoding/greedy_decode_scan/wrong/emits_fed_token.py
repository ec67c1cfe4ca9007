"""Emit the token fed at this step instead of the new one.

Caught by: test_hand_example_with_eos_and_padding
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp

StepFn = Callable[[Any, jax.Array], tuple[jax.Array, Any]]


def greedy_decode(
    step_fn: StepFn,
    state: Any,
    first_tokens: jax.Array,
    num_steps: int,
    eos_id: int,
    pad_id: int,
) -> tuple[jax.Array, jax.Array]:
    """first_tokens (B,) -> tokens (B, num_steps), lengths (B,); all int32."""

    def step(carry, _):
        state, fed, done, length = carry
        logits, state = step_fn(state, fed)
        candidate = jnp.argmax(logits, axis=-1).astype(jnp.int32)
        emitted = jnp.where(done, jnp.int32(pad_id), candidate)
        # count steps taken while running
        length = length + (~done).astype(jnp.int32)
        done = done | (emitted == eos_id)
        return (state, emitted, done, length), fed

    first_tokens = jnp.asarray(first_tokens, jnp.int32)
    batch = first_tokens.shape[0]
    init = (
        state,
        first_tokens,
        jnp.zeros(batch, bool),
        jnp.zeros(batch, jnp.int32),
    )
    (_, _, _, lengths), tokens = jax.lax.scan(step, init, length=num_steps)
    return tokens.T, lengths  # scan stacks steps first: (T, B)
