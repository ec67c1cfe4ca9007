"""Beam Search Step.

One step of beam search over a batch: extend every beam by every token, keep
the ``K`` best candidates per batch row, and reorder per-beam state (such as a
KV cache) to follow the survivors.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp


def beam_search_step(
    scores: jax.Array, log_probs: jax.Array, finished: jax.Array, eos_id: int
) -> tuple[jax.Array, jax.Array, jax.Array, jax.Array]:
    """Select the ``K`` best one-token extensions of ``K`` beams.

    scores: (B, K) float32, the total log-probability of each beam so far
    (``-inf`` marks an unused beam); log_probs: (B, K, V) float32, next-token
    log-probabilities of each beam; finished: (B, K) bool, beams that already
    ended with ``eos_id``; eos_id: Python int.

    The candidate (k, v) of row b has the score

        scores[b, k] + log_probs[b, k, v]

    except for a finished beam k: its only candidate is (k, eos_id) with the
    unchanged score ``scores[b, k]`` (every other token of a finished beam
    scores ``-inf``). Keep the ``K`` candidates with the highest scores, best
    first; equal scores are ordered by the flat index ``k * V + v``, lowest
    first (the rule of ``jax.lax.top_k``).

    Returns ``(new_scores, parents, tokens, new_finished)``, each (B, K):
    new_scores float32 (descending along K), parents int32 (the beam k each
    survivor extends), tokens int32 (its new token v), new_finished bool (the
    parent was finished, or the new token is ``eos_id``).
    """
    raise NotImplementedError(
        "beam_search_step: mask finished beams, flatten (K, V), jax.lax.top_k"
    )


def gather_beams(tree: Any, parents: jax.Array) -> Any:
    """Reorder per-beam state to follow the survivors.

    tree: a pytree whose leaves have shape (B, K, ...); parents: (B, K) int32
    from ``beam_search_step``. Returns the same structure, where

        out[b, k] = leaf[b, parents[b, k]]
    """
    raise NotImplementedError(
        "gather_beams: index each leaf along axis 1 with parents"
    )
