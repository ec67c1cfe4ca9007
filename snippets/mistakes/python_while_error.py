# raises: jax.errors.TracerBoolConversionError
import jax


@jax.jit
def halvings(x):
    """Halvings of x until below 1, Python while. x: () -> () int."""
    count = 0
    while x >= 1.0:  # the loop test is a tracer too
        x = x / 2
        count += 1
    return count


halvings(20.0)
