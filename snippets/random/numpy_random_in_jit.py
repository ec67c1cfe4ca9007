import jax
import numpy as np

np.random.seed(0)  # NumPy's hidden global generator


@jax.jit
def add_noise(x):
    """Add Gaussian noise from NumPy's generator. x: () -> ()."""
    # runs once, while tracing: becomes a constant
    return x + np.random.normal()


print("three calls:", [float(add_noise(0.0)) for _ in range(3)])
