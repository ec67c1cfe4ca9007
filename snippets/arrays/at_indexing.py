import jax.numpy as jnp
import numpy as np

grid = jnp.zeros((3, 4), dtype=jnp.int32)
grid = grid.at[1, :].set(1)  # a whole row
grid = grid.at[:, 2].add(5)  # a whole column
# repeated indices accumulate
rows, cols = np.array([0, 0, 2]), np.array([0, 0, 3])
grid = grid.at[rows, cols].add(1)
print(grid)

# NumPy at the same pairs, for comparison
g = np.zeros((3, 4), dtype=np.int32)
g[rows, cols] += 1
h = np.zeros((3, 4), dtype=np.int32)
np.add.at(h, (rows, cols), 1)
print("corner: NumPy's g[rows, cols] += 1:", g[0, 0], "| np.add.at:", h[0, 0])
