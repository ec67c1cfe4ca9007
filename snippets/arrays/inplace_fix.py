import jax.numpy as jnp

x = jnp.zeros(3)
y = x.at[0].set(1.0)
print("x:", x)
print("y:", y)
print("same object?", x is y)
