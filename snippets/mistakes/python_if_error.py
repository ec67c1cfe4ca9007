# raises: jax.errors.TracerBoolConversionError
import jax


@jax.jit
def relu(x):
    """max(x, 0) written with a Python if. x: scalar -> scalar."""
    if x > 0:  # needs a concrete True/False, but x is a tracer
        return x
    return 0.0 * x


relu(2.0)
