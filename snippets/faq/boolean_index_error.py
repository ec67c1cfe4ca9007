# raises: jax.errors.NonConcreteBooleanIndexError
import jax
import jax.numpy as jnp


@jax.jit
def positives(x):
    """The positive entries of x. x: (n,) -> (how many?,)."""
    return x[x > 0]  # the output length depends on the values


positives(jnp.array([-1.0, 2.0, 3.0]))
