import jax.numpy as jnp

block_size, d = 2, 3
# 6 blocks
pool = jnp.arange(6 * block_size * d, dtype=jnp.float32).reshape(
    6, block_size, d
)
block_table = jnp.array([4, 1, 3])  # this sequence's blocks, in order

# gather the blocks, then flatten to positions
keys = pool[block_table].reshape(-1, d)
print("pool:", pool.shape, " one sequence's keys:", keys.shape)
print("block 4, row 0:", pool[4, 0], " sequence position 0:", keys[0])
