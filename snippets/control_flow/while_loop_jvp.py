"""Forward mode goes through lax.while_loop: jvp and jacfwd work."""

import jax
from jax import lax


def double_until_ten(x):
    """Double x until it is at least 10. Scalar -> scalar."""
    return lax.while_loop(lambda v: v < 10.0, lambda v: 2.0 * v, x)


value, slope = jax.jvp(double_until_ten, (1.5,), (1.0,))
print("value:", value, "| derivative by jvp:", slope)
print("derivative by jacfwd:", jax.jacfwd(double_until_ten)(1.5))
