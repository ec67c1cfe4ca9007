"""Block number from positions % P and slot from positions // P.

Caught by: test_write_matches_loop_and_leaves_input
"""

import jax
import jax.numpy as jnp


def gather_pages(pages: jax.Array, block_table: jax.Array) -> jax.Array:
    """pages (num_pages, P, K, H), block_table (B, M) -> (B, M * P, K, H)."""
    # (B, M, P, K, H): one gather, indices may be traced
    blocks = pages[block_table]
    b, m, p = blocks.shape[:3]
    return blocks.reshape(b, m * p, *blocks.shape[3:])


def write_token(
    pages: jax.Array,
    block_table: jax.Array,
    positions: jax.Array,
    kv: jax.Array,
) -> jax.Array:
    """kv (B, K, H) at the slots of positions (B,) -> new pool (same shape)."""
    page_size = pages.shape[1]
    rows = jnp.arange(block_table.shape[0])
    # (B,) physical page of each token
    page = block_table[rows, positions % page_size]
    slot = positions // page_size  # (B,) row inside that page
    return pages.at[page, slot].set(kv.astype(pages.dtype))
