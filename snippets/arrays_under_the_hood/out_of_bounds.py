import jax.numpy as jnp

x = jnp.arange(5.0)  # valid indices: 0 to 4
idx = jnp.array([1, 10])

# mode= chooses what happens to the out-of-bounds index 10
print("get, fill:", x.at[idx].get(mode="fill"))  # NaN by default
print("add, clip:", x.at[idx].add(100.0, mode="clip"))
print("add, drop:", x.at[idx].add(100.0, mode="drop"))
