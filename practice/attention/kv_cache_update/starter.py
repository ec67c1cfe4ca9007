"""KV Cache Update.

During autoregressive decoding the keys and values of past tokens are kept in a
fixed-size cache so that each new token only computes its own. JAX arrays are
immutable and shapes must stay static under jit, so "appending" means writing
into a preallocated buffer at a position that is a traced value, and returning
a new cache.
"""

import jax
import jax.numpy as jnp

Cache = dict[str, jax.Array]


def init_kv_cache(
    batch: int,
    max_len: int,
    num_kv_heads: int,
    head_dim: int,
    dtype=jnp.float32,
) -> Cache:
    """An empty cache: {"k": zeros (B, L, K, H), "v": zeros (B, L, K, H)} of
    the given dtype."""
    raise NotImplementedError("init_kv_cache: two zero buffers")


def update_kv_cache(
    cache: Cache, k_new: jax.Array, v_new: jax.Array, pos: jax.Array
) -> Cache:
    """Write S new tokens of every sequence into the cache, each sequence at
    its own position.

    cache: {"k", "v"} of shape (B, L, K, H); k_new, v_new: (B, S, K, H);
    pos: (B,) int32, the first cache row to write for each sequence, with
    0 <= pos[b] <= L - S. Returns a NEW cache where the rows
    pos[b] ... pos[b] + S - 1 of sequence b hold k_new[b] and v_new[b] (cast
    to the cache dtype) and every other entry is unchanged. The input cache is
    not modified. pos may be traced: the function must work under ``jax.jit``
    without recompiling for new positions.
    """
    raise NotImplementedError(
        "update_kv_cache: lax.dynamic_update_slice, vmapped over the batch"
    )
