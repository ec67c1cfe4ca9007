import jax.numpy as jnp

x = jnp.arange(5.0)  # valid indices: 0 to 4, or -5 to -1
print("x:             ", x)
print("x[10]:         ", x[10])  # clamped to the last index
print("x[-10]:        ", x[-10])  # clamped to the first
print("x.at[10].set(9)", x.at[10].set(9.0))  # dropped: x is unchanged
print("jnp.take(x, 10)", jnp.take(x, 10))  # take's default mode is "fill"
