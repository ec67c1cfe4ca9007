import jax.numpy as jnp

grid = jnp.zeros((3, 4), dtype=jnp.int32)
grid = grid.at[1, :].set(1)  # a whole row
grid = grid.at[:, 2].add(5)  # a whole column
# repeated indices accumulate
grid = grid.at[jnp.array([0, 0, 2]), jnp.array([0, 0, 3])].add(1)
print(grid)
