"""Count every accepted token (a sum), not only the leading run.

Caught by: test_acceptance_counts_follow_min_p_q
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
    """tokens (L,), q (L, V), p (L+1, V) -> tokens (L+1,), num_emitted ()."""
    num_draft = draft_tokens.shape[0]
    accept_key, sample_key = jax.random.split(key)

    positions = jnp.arange(num_draft)
    p_x = target_probs[positions, draft_tokens]
    q_x = draft_probs[positions, draft_tokens]
    u = jax.random.uniform(accept_key, (num_draft,))
    accepted = u * q_x < p_x  # u < p/q, without dividing by q
    # leading accepted tokens
    n = jnp.sum(accepted.astype(jnp.int32))

    # row i < L: the residual max(p_i - q_i, 0); row L: p_L (bonus token)
    residual = jnp.maximum(target_probs[:num_draft] - draft_probs, 0.0)
    # (L+1, V)
    last_dists = jnp.concatenate([residual, target_probs[num_draft:]], axis=0)
    # unnormalised is fine
    last_token = jax.random.categorical(sample_key, jnp.log(last_dists[n]))

    slots = jnp.arange(num_draft + 1)
    padded_draft = jnp.append(draft_tokens.astype(jnp.int32), pad_id)
    tokens = jnp.where(slots < n, padded_draft, pad_id)
    tokens = jnp.where(slots == n, last_token, tokens).astype(jnp.int32)
    return tokens, (n + 1).astype(jnp.int32)
