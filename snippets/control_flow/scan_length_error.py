# raises: jax.errors.ConcretizationTypeError
# match: The `length` argument to `scan` expects a concrete `int`
import jax
from jax import lax


def power(x, n):
    """x**n by n multiplications, with scan. x: (), n: int -> ()."""
    # No xs: length= sets the number of steps, as in greedy decoding
    y, _ = lax.scan(lambda y, _: (y * x, None), 1.0, length=n)
    return y


jax.jit(power)(2.0, 3)  # n is traced, but scan needs its length
