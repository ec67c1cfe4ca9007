# raises: TypeError
# match: grad requires real- or complex-valued inputs
import jax


def f(x):
    """x: () -> (), the square."""
    return x**2


print("float input:", jax.grad(f)(3.0))
jax.grad(f)(3)  # an int input: JAX refuses to differentiate it
