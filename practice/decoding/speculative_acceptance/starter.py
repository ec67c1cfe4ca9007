"""Speculative Decoding Acceptance.

A small draft model proposes ``L`` tokens; the large target model scores them
all in one pass. This function decides which proposals to keep, with the
rejection rule of speculative sampling (Leviathan et al., 2023; Chen et al.,
2023), so that the emitted tokens follow the target distribution exactly,
whatever the draft model is.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp


def speculative_accept(
    key: jax.Array,
    draft_tokens: jax.Array,
    draft_probs: jax.Array,
    target_probs: jax.Array,
    pad_id: int = -1,
) -> tuple[jax.Array, jax.Array]:
    """Accept a prefix of the draft and emit one more token.

    key: a PRNG key (split it; never use one key twice).
    draft_tokens: (L,) int32, token i was sampled from ``draft_probs[i]``.
    draft_probs: (L, V) float32, the draft distributions q_0 .. q_{L-1} (rows
    sum to 1). target_probs: (L + 1, V) float32, the target distributions
    p_0 .. p_L; p_i is the target's distribution at position i given the
    prefix and draft tokens 0 .. i-1 (p_L follows all of them).

    Rule: with independent u_i ~ Uniform[0, 1), draft token x_i is accepted
    if and only if

        u_i < p_i(x_i) / q_i(x_i)

    Let n be the number of leading accepted tokens (stop at the first
    rejection). If n < L, emit x_0 .. x_{n-1} and then one token drawn from
    the residual distribution max(p_n - q_n, 0), renormalised. If n == L, emit
    all L draft tokens and then a bonus token drawn from p_L.

    Returns ``(tokens, num_emitted)``: tokens (L + 1,) int32, the n + 1 emitted
    tokens followed by ``pad_id``; num_emitted: int32 scalar, n + 1 (between 1
    and L + 1). Works under ``jax.jit`` (no Python ``if`` on array values).
    """
    raise NotImplementedError(
        "speculative_accept: accept mask, count leading accepts, sample the "
        "last token"
    )
