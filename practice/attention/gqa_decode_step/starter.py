"""Grouped-Query Attention Decode Step.

In grouped-query attention (GQA) the N query heads are split into K groups, and
every group shares one key/value head, so the KV cache is N / K times smaller
than with one KV head per query head. One decode step attends a single new
query token to the cached keys and values.
"""

import jax
import jax.numpy as jnp


def gqa_decode_step(
    q: jax.Array, k_cache: jax.Array, v_cache: jax.Array, lengths: jax.Array
) -> jax.Array:
    """Attention of one query token per sequence over its KV cache.

    q: (B, N, H) the new token's queries; k_cache, v_cache: (B, L, K, H),
    with N divisible by K; lengths: (B,) int32, the number of valid cache rows
    of each sequence (1 <= lengths[b] <= L); rows at positions >= lengths[b]
    hold garbage and must get zero weight. Query head n uses KV head
    n // (N // K) (consecutive query heads share a KV head). Scores are
    q . k / sqrt(H), softmax over the valid positions. Returns (B, N, H) in
    q's dtype.

    Do not materialise the repeated cache: no intermediate array may be as
    large as B * L * N * H elements (reshape the queries into groups instead).
    Works under ``jax.jit`` with traced lengths.
    """
    raise NotImplementedError(
        "gqa_decode_step: reshape q to (B, K, N // K, H), einsum, mask, "
        "softmax"
    )
