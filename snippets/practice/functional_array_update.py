import jax.numpy as jnp

from practice.arrays.functional_array_update.solution import (
    scatter_add,
    set_border,
    swap_rows,
)

x = jnp.arange(12.0).reshape(3, 4)
print("set_border(x, -1):\n", set_border(x, -1.0))
print("x is unchanged:\n", x)
print("swap_rows(x, 0, 2):\n", swap_rows(x, 0, 2))

indices = jnp.array([0, 2, 2, -1, 5], dtype=jnp.int32)
weights = jnp.array([1.0, 10.0, 20.0, 100.0, 100.0])
print("scatter_add(3, indices, weights):", scatter_add(3, indices, weights))

# Without the remapping, .at[].add wraps -1 around to the last bin and drops 5.
print("plain .at[].add:", jnp.zeros(3).at[indices].add(weights))
