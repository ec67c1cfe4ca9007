import jax
import jax.numpy as jnp


@jax.jit
def scaled(x, scale):
    """Multiply by scale. x: any shape, scale: scalar -> shape of x."""
    return scale * x


print("scale=2: ", scaled(jnp.ones(2), 2.0))
print("scale=10:", scaled(jnp.ones(2), 10.0))
