# raises: jax.errors.TracerIntegerConversionError
import jax


@jax.jit
def power(x, n):
    """x**n by n multiplications. x: (), n: int -> ()."""
    y = 1.0
    for _ in range(n):  # range needs a Python int, but n is a tracer
        y = y * x
    return y


power(2.0, 3)
