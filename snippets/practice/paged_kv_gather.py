import jax.numpy as jnp

from practice.attention.paged_kv_gather.solution import (
    gather_pages,
    write_token,
)

# A pool of 6 pages of 2 tokens; one feature per token (K = H = 1) to keep the
# printout small.
pages = jnp.zeros((6, 2, 1, 1))
block_table = jnp.array(
    [
        [4, 1, 0],  # sequence 0 owns pages 4, 1, 0
        # sequence 1 shares page 4 (a common prompt), then 5, 2
        [4, 5, 2],
    ],
    jnp.int32,
)

for t in range(2):  # the shared prompt: tokens 1, 2 written once, into page 4
    pages = write_token(
        pages,
        block_table[:1],
        jnp.array([t], jnp.int32),
        jnp.full((1, 1, 1), t + 1.0),
    )
for t in range(2, 5):  # then each sequence decodes its own tokens
    tokens = jnp.array([10.0 * t, 100.0 * t]).reshape(2, 1, 1)
    pages = write_token(
        pages, block_table, jnp.full((2,), t, jnp.int32), tokens
    )

print("pool, one row per page:\n", pages[:, :, 0, 0])
contiguous = gather_pages(pages, block_table)  # (B, M * P, K, H)
print("sequence 0:", contiguous[0, :, 0, 0])
print("sequence 1:", contiguous[1, :, 0, 0])
