"""Greedy Decode Loop with Scan.

Generate tokens one at a time with a fixed number of steps, as one
``jax.lax.scan``, so that the whole loop compiles once. Rows that emit the
end-of-sequence token stop: from then on they emit ``pad_id``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp

# step_fn(state, tokens) -> (logits, new_state)
#   state:  any pytree, the model's carry (an RNN hidden state, a KV cache)
#   tokens: (B,) int32, the tokens fed to the model at this step
#   logits: (B, V) float32, the scores of the next token
StepFn = Callable[[Any, jax.Array], tuple[jax.Array, Any]]


def greedy_decode(
    step_fn: StepFn,
    state: Any,
    first_tokens: jax.Array,
    num_steps: int,
    eos_id: int,
    pad_id: int,
) -> tuple[jax.Array, jax.Array]:
    """Run ``num_steps`` greedy decoding steps with ``jax.lax.scan``.

    step_fn: see ``StepFn`` above; state: its initial state; first_tokens: (B,)
    int32, the token fed at the first step; num_steps: Python int >= 1
    (static); eos_id, pad_id: Python ints.

    At each step: ``logits, state = step_fn(state, fed)``; the candidate is
    ``argmax(logits, axis=-1)`` (the lowest index among equal maxima); a row
    that has already emitted ``eos_id`` at an earlier step emits ``pad_id``
    instead. The emitted token is what is fed at the next step (``fed`` starts
    as ``first_tokens``). ``step_fn`` is called at every step for every row,
    finished or not.

    Returns ``(tokens, lengths)``: tokens (B, num_steps) int32, the emitted
    tokens in order; lengths (B,) int32, the number of tokens up to and
    including the first ``eos_id`` (``num_steps`` if a row never emits it).
    """
    raise NotImplementedError(
        "greedy_decode: one lax.scan whose carry holds state, token, done "
        "flags"
    )
