# raises: ValueError
# match: Non-hashable static arguments
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames="sizes")
def zeros_like_layers(x, sizes):
    """One zero vector per layer size. x: (), sizes: ints -> list of (s,)."""
    return [jnp.zeros(s) + x for s in sizes]


zeros_like_layers(1.0, sizes=jnp.array([2, 3]))  # neither can an array
