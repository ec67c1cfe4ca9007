# raises: jax.errors.TracerBoolConversionError
import jax


@jax.jit
def halvings(x):
    """How many times x must be halved to drop below 1, with a Python while. x:
    scalar -> int."""
    count = 0
    while x >= 1.0:  # the loop test is a tracer too
        x = x / 2
        count += 1
    return count


halvings(20.0)
