"""Paged KV Cache Gather.

A paged KV cache (as in vLLM's PagedAttention) stores keys or values in a
shared pool of fixed-size pages instead of one long buffer per sequence. A
block table maps each sequence's logical blocks to physical pages, so memory is
handed out a page at a time and sequences can share pages. Here you write a
token into its page and gather a sequence's pages back into a contiguous cache.
"""

import jax
import jax.numpy as jnp


def gather_pages(pages: jax.Array, block_table: jax.Array) -> jax.Array:
    """Assemble each sequence's contiguous cache from the page pool.

    pages: (num_pages, P, K, H), the pool; P is the page size (tokens per
    page). block_table: (B, M) int32; block_table[b, j] is the page holding
    the logical positions j * P ... (j + 1) * P - 1 of sequence b. Returns
    (B, M * P, K, H) with

        out[b, t] = pages[block_table[b, t // P], t % P]

    No Python loops over B or M; works under ``jax.jit`` with a traced block
    table.
    """
    raise NotImplementedError(
        "gather_pages: index the pool with the block table, then reshape"
    )


def write_token(
    pages: jax.Array,
    block_table: jax.Array,
    positions: jax.Array,
    kv: jax.Array,
) -> jax.Array:
    """Write one new token per sequence into its page; return the new pool.

    pages: (num_pages, P, K, H); block_table: (B, M) int32; positions: (B,)
    int32, the logical position of the new token of each sequence, below
    M * P; kv: (B, K, H), the token's keys (or values). For every b, with
    t = positions[b]:

        pages[block_table[b, t // P], t % P] = kv[b]

    The targets of different sequences are distinct. Every other entry is
    unchanged, the input pool is not modified. Works under ``jax.jit`` with
    traced positions and block table.
    """
    raise NotImplementedError(
        "write_token: page and slot from the position, then .at[...].set"
    )
