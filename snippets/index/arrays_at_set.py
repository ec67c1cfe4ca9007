import jax.numpy as jnp

x = jnp.zeros(4)
y = x.at[0].set(1.0)  # a new array; x is untouched
print("x:", x)
print("y:", y)
