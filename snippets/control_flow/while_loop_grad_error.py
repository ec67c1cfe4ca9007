# raises: ValueError
# match: Reverse-mode differentiation does not work for lax.while_loop
import jax
from jax import lax


def double_until_ten(x):
    """Double x until it is at least 10. Scalar -> scalar."""
    return lax.while_loop(lambda v: v < 10.0, lambda v: 2.0 * v, x)


jax.grad(double_until_ten)(1.5)
