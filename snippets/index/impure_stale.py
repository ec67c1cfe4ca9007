import jax
import jax.numpy as jnp

scale = 2.0


@jax.jit
def scaled(x):
    """Impure: reads the global `scale`. x: any shape -> same shape."""
    return scale * x


print("scale=2, first call: ", scaled(jnp.ones(2)))
scale = 10.0
# the compiled program kept 2.0
print("scale=10, same shape:", scaled(jnp.ones(2)))
print("scale=10, new shape: ", scaled(jnp.ones(3)))  # a retrace picks up 10.0
