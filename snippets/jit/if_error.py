# raises: jax.errors.TracerBoolConversionError
import jax
import jax.numpy as jnp


@jax.jit
def relu_or_leak(x):
    """ReLU if the sum is positive, else a leaky slope. x: (n,) -> (n,)."""
    if x.sum() > 0:  # a Python if needs a concrete True/False
        return jnp.maximum(x, 0.0)
    return 0.1 * x


relu_or_leak(jnp.array([1.0, -2.0, 3.0]))
