# raises: jax.errors.TracerBoolConversionError
import jax
import jax.numpy as jnp


@jax.jit
def leaky_relu(x):
    """x: scalar -> scalar."""
    if x > 0:  # x is a tracer: it has no True/False value at trace time
        return x
    return 0.01 * x


leaky_relu(jnp.float32(2.0))
