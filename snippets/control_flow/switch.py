# platform: tpu rtol=1e-4 -- tanh's last digits: XLA computes float32 tanh on a TPU with its own approximation (up to 3e-5 apart)
# platform: gpu differs -- tanh's last digits: XLA computes float32 tanh on a GPU with its own approximation

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
