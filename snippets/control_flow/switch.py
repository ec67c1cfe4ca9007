# platform: tpu rtol=1e-4 -- A TPU computes float32 tanh with its own approximation, so the last digits differ (up to 3e-5)
# platform: gpu differs -- A GPU computes float32 tanh with its own approximation, so the last digits differ

"""lax.switch picks one of several functions by a traced integer index."""

import jax
import jax.numpy as jnp
from jax import lax

# 0: relu, 1: tanh, 2: identity
activations = [jax.nn.relu, jnp.tanh, lambda x: x]


@jax.jit
def activate(index, x):
    """index: int scalar, x: (n,) -> (n,)."""
    return lax.switch(index, activations, x)


x = jnp.array([-1.0, 0.5, 2.0])
for i in range(3):
    print(f"index {i}:", activate(i, x))
# An out-of-range index is clamped to the valid range, not an error.
print("index -5:", activate(-5, x))
print("index  9:", activate(9, x))
