"""Online Softmax over Key Blocks.

Attention of a block of queries to keys and values that arrive one block at
a time (from the next device of a ring, or from the next tile of memory),
without ever holding all the scores: fold each block into a running state,
then finish. The result is softmax attention over all the keys seen.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp


def init_state(b: int, dv: int) -> tuple[jax.Array, jax.Array, jax.Array]:
    """The state before any block, for b queries and values of width dv:
    (m, total, acc) = (-inf of shape (b,), zeros (b,), zeros (b, dv)), all
    float32. m is the largest visible score seen so far per query, total the
    sum of exp(score - m) over the visible keys so far, acc the sum of
    exp(score - m) * value."""
    raise NotImplementedError("init_state: jnp.full and jnp.zeros")


def fold_block(
    state: tuple[jax.Array, jax.Array, jax.Array],
    q: jax.Array,
    k: jax.Array,
    v: jax.Array,
    mask: jax.Array,
) -> tuple[jax.Array, jax.Array, jax.Array]:
    """Fold one block of keys into the state.

    state: (m (b,), total (b,), acc (b, dv)); q: (b, d) queries; k: (c, d)
    and v: (c, dv) a block of c keys and values; mask: (b, c) bool, True
    where query i may see key j (a causal mask, say). The scores are
    q @ k.T / sqrt(d). Masked keys contribute nothing, and a block whose
    keys a query cannot see leaves that query's state exactly as it was.
    -> the new state, float32, shapes as the old.
    """
    raise NotImplementedError(
        "fold_block: new max, rescale the old sums by exp(m - m_new), add"
    )


def finish(state: tuple[jax.Array, jax.Array, jax.Array]) -> jax.Array:
    """The attention output acc / total, (b, dv) float32; 0 for a query
    that saw no visible key at all."""
    raise NotImplementedError("finish: divide, guarding total == 0")
