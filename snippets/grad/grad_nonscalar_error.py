# raises: TypeError
# match: scalar-output
import jax
import jax.numpy as jnp


def f(x):
    """Elementwise square. x: (3,) -> (3,)."""
    return x**2


jax.grad(f)(jnp.array([1.0, 2.0, 3.0]))
