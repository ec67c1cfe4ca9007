"""Top-k and Top-p Sampling.

Filter next-token logits with top-k and nucleus (top-p) rules, then draw a
token with an explicit PRNG key. Filtering means setting the logits of removed
tokens to ``-inf`` so that they get probability zero.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp


def top_k_filter(logits: jax.Array, k: int) -> jax.Array:
    """Keep the ``k`` largest logits along the last axis and set all others to
    ``-inf``.

    logits: (..., V) float32, bfloat16 or float16. k: Python int with
    1 <= k <= V (static under ``jax.jit``).
    Returns an array of the same shape and dtype. Exactly ``k`` entries per row
    keep their value: among equal logits the lower index is kept (the rule of
    ``jax.lax.top_k``).
    """
    raise NotImplementedError(
        "top_k_filter: find the k winners with jax.lax.top_k, mask the rest"
    )


def top_p_filter(logits: jax.Array, p) -> jax.Array:
    """Nucleus filter: keep the most probable tokens until their probability
    reaches ``p``.

    logits: (..., V) float32; p: float in (0, 1], a Python float or a traced
    scalar. Sort the tokens of each row by probability ``softmax(logits)``,
    highest first, equal probabilities in index order. The token at sorted
    position ``i`` is kept if and only if the total probability of the tokens
    at sorted positions ``0 .. i-1`` is ``< p``; so the most probable token is
    always kept. Kept logits are unchanged, removed ones become ``-inf``.
    Returns an array of the same shape and dtype as ``logits``.
    """
    raise NotImplementedError(
        "top_p_filter: sort, take an exclusive cumulative sum, unsort the mask"
    )


def sample(
    key: jax.Array,
    logits: jax.Array,
    *,
    temperature=1.0,
    top_k: int | None = None,
    top_p=None,
) -> jax.Array:
    """Draw one token per row of ``logits``.

    key: a PRNG key; logits: (..., V) float32; temperature > 0 (may be traced);
    top_k: Python int or None; top_p: float in (0, 1], possibly traced, or
    None. Order of operations: divide the logits by ``temperature``, then apply
    ``top_k_filter`` (if ``top_k`` is given), then ``top_p_filter`` (if
    ``top_p`` is given) on the result, then sample from the softmax of what is
    left with ``jax.random.categorical``. Returns (...,) int32 token ids.
    """
    raise NotImplementedError(
        "sample: scale, filter, then jax.random.categorical"
    )
