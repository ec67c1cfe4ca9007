# raises: TypeError
# match: carry input and carry output must have equal types
import jax.numpy as jnp
from jax import lax


def step(history, x):
    """Append x to the carried history: the carry grows every step."""
    return jnp.append(history, x), None


lax.scan(step, jnp.zeros(0), jnp.arange(4.0))
