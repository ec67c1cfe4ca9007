# raises: ValueError
# match: Reverse-mode differentiation does not work for lax.while_loop
import jax
from jax import lax


def power(x, n):
    """x**n by n multiplications. x: (), n: int -> ()."""
    return lax.fori_loop(0, n, lambda i, y: y * x, 1.0)


jax.jit(jax.grad(power))(2.0, 3)  # under jit, n is traced: a while_loop
