# raises: TypeError
# match: immutable
import jax.numpy as jnp

scores = jnp.array([0.1, 0.7, 0.2])
scores[1] = 0.0  # NumPy habit: assign into the array
