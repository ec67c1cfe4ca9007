"""Batched Attention with vmap.

Write scaled dot-product attention for ONE example, then batch it with
``jax.vmap``. Layout (the one ``jax.nn.dot_product_attention`` uses): sequence,
heads, head dimension.
"""

import jax
import jax.numpy as jnp


def attention(
    q: jax.Array, k: jax.Array, v: jax.Array, causal: bool = False
) -> jax.Array:
    """Multi-head scaled dot-product attention for a single example.

    q: (T, N, H) queries; k, v: (S, N, H) keys and values; float32.
    Returns (T, N, H), where for every head n and query position t

        out[t, n] = sum_s softmax_s(q[t, n] . k[s, n] / sqrt(H)) * v[s, n].

    causal=True (a Python bool, requires T == S): query t only attends to key
    positions s <= t. The softmax must stay finite for large logits.
    """
    raise NotImplementedError(
        "attention: compute the (N, T, S) logits, mask, softmax, weight v"
    )


def batched_attention(
    q: jax.Array, k: jax.Array, v: jax.Array, causal: bool = False
) -> jax.Array:
    """``attention`` over a batch, with ``jax.vmap`` (no loop, no batch axis).

    q: (B, T, N, H); k, v: (B, S, N, H) -> (B, T, N, H).
    """
    raise NotImplementedError(
        "batched_attention: vmap attention over the leading axis"
    )
