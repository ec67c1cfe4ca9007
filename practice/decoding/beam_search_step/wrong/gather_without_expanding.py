"""gather_beams with take_along_axis on the (B, K) parents unexpanded.

Caught by: test_gather_beams_on_a_pytree
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp


def beam_search_step(
    scores: jax.Array, log_probs: jax.Array, finished: jax.Array, eos_id: int
) -> tuple[jax.Array, jax.Array, jax.Array, jax.Array]:
    """scores (B, K), log_probs (B, K, V), finished (B, K) -> four (B, K)."""
    batch, beams, vocab = log_probs.shape
    # a finished beam can only be extended by eos_id, at no cost
    eos_only = jnp.where(jnp.arange(vocab) == eos_id, 0.0, -jnp.inf)  # (V,)
    log_probs = jnp.where(finished[..., None], eos_only, log_probs)
    candidates = (scores[..., None] + log_probs).reshape(batch, beams * vocab)
    new_scores, flat = jax.lax.top_k(candidates, beams)  # (B, K) each
    parents = (flat // vocab).astype(jnp.int32)
    tokens = (flat % vocab).astype(jnp.int32)
    parent_finished = jnp.take_along_axis(finished, parents, axis=1)
    return new_scores, parents, tokens, parent_finished | (tokens == eos_id)


def gather_beams(tree: Any, parents: jax.Array) -> Any:
    """out[b, k] = leaf[b, parents[b, k]] for every leaf (B, K, ...)."""

    def pick(leaf):
        return jnp.take_along_axis(leaf, parents, axis=1)

    return jax.tree.map(pick, tree)
