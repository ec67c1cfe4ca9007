"""Online Softmax over Key Blocks: reference solution."""

from __future__ import annotations

import jax
import jax.numpy as jnp


def init_state(b: int, dv: int) -> tuple[jax.Array, jax.Array, jax.Array]:
    """-> (m (b,) = -inf, total (b,) = 0, acc (b, dv) = 0), float32."""
    m = jnp.full((b,), -jnp.inf, jnp.float32)
    return m, jnp.zeros((b,), jnp.float32), jnp.zeros((b, dv), jnp.float32)


def fold_block(state, q, k, v, mask):
    """state, q (b, d), k (c, d), v (c, dv), mask (b, c) -> new state."""
    m, total, acc = state
    s = q @ k.T / jnp.sqrt(jnp.float32(q.shape[-1]))
    s = jnp.where(mask, s, -jnp.inf)  # masked keys before the max
    m_new = jnp.maximum(m, s.max(axis=-1))
    # a query that has seen no visible key yet keeps m = -inf: shift by 0
    # there, so that exp(-inf - shift) is 0 and not nan
    shift = jnp.where(jnp.isfinite(m_new), m_new, 0.0)
    p = jnp.exp(s - shift[:, None])
    scale = jnp.exp(m - shift)  # rewrites the old sums under the new max
    return m_new, total * scale + p.sum(-1), acc * scale[:, None] + p @ v


def finish(state):
    """state -> (b, dv): acc / total, 0 where total is 0."""
    _, total, acc = state
    seen = total > 0
    return jnp.where(
        seen[:, None], acc / jnp.where(seen, total, 1.0)[:, None], 0.0
    )
