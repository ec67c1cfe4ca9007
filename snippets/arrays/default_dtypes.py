import jax.numpy as jnp
import numpy as np

print("numpy     float:", np.array([1.5]).dtype, "  int:", np.array([1]).dtype)
print(
    "jax.numpy float:", jnp.array([1.5]).dtype, "  int:", jnp.array([1]).dtype
)
print("a float64 NumPy array becomes", jnp.asarray(np.ones(2)).dtype)
