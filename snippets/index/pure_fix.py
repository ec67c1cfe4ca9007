import jax
import jax.numpy as jnp


@jax.jit
def scaled(x, scale):
    """Multiply by a scale passed in. x: any shape, scale: scalar -> same shape
    as x."""
    return scale * x


print("scale=2: ", scaled(jnp.ones(2), 2.0))
print("scale=10:", scaled(jnp.ones(2), 10.0))
