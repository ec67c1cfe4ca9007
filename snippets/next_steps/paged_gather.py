import jax.numpy as jnp

block_size, d = 2, 3
pool = jnp.arange(6 * block_size * d, dtype=jnp.float32).reshape(6, block_size, d)  # 6 blocks
block_table = jnp.array([4, 1, 3])  # this sequence's blocks, in order

keys = pool[block_table].reshape(-1, d)  # gather the blocks, then flatten to positions
print("pool:", pool.shape, " one sequence's keys:", keys.shape)
print("block 4, row 0:", pool[4, 0], " sequence position 0:", keys[0])
