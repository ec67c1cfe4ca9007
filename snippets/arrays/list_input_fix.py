import jax.numpy as jnp

values = [1.0, 2.0, 3.0]
x = jnp.array(values)  # convert once, explicitly
print("converted once:", jnp.sum(x))
