# raises: TypeError
# match: sum requires ndarray or scalar arguments
import jax.numpy as jnp
import numpy as np

print("NumPy takes a list:", np.sum([1.0, 2.0, 3.0]))
jnp.sum([1.0, 2.0, 3.0])
