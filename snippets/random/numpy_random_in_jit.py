import jax
import numpy as np

np.random.seed(0)  # NumPy's hidden global generator


@jax.jit
def add_noise(x):
    """Add Gaussian noise from NumPy's generator. x: () -> ()."""
    # runs once, while tracing: becomes a constant
    return x + np.random.normal()


print("three calls:", [float(add_noise(0.0)) for _ in range(3)])

rng = np.random.default_rng(0)  # a Generator object: not global, but stateful


@jax.jit
def add_rng_noise(x):
    """Add Gaussian noise from rng, which each draw advances. x: () -> ()."""
    return x + rng.normal()


print(
    "default_rng, three calls:", [float(add_rng_noise(0.0)) for _ in range(3)]
)


traces = 0  # Python runs only while jit traces


@jax.jit
def add_keyed_noise(x, key):
    """Add Gaussian noise drawn with key. x: (), key -> ()."""
    global traces
    traces += 1
    return x + jax.random.normal(key)


keys = jax.random.split(jax.random.key(0), 3)
print("three keys:", [round(float(add_keyed_noise(0.0, k)), 4) for k in keys])
print("traced:", traces, "time(s)")
