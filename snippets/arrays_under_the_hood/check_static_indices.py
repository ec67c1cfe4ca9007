import jax
import jax.numpy as jnp

x = jnp.arange(5)
print("x[10], unchecked:", x[10])
jax.config.update("jax_check_static_indices", True)  # off by default
try:
    jax.jit(lambda x: x[10])(x)  # a Python int: known while tracing
except IndexError as err:
    print("x[10], checked: IndexError:", err)
print("x[i] with i = 10 traced:", jax.jit(lambda x, i: x[i])(x, 10))
print("x.at[10].set(9):", x.at[10].set(9))
jax.config.update("jax_check_static_indices", False)
