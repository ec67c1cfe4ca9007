# raises: jax.errors.ConcretizationTypeError
import jax
import jax.numpy as jnp


@jax.jit
def positions(x, n):
    """The first n positions, scaled by x. x: (), n: int -> (n,)."""
    return x * jnp.arange(n)  # the output shape depends on the value of n


positions(2.0, 4)
