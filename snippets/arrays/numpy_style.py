import numpy as np
import jax.numpy as jnp

np.set_printoptions(precision=3, suppress=True)


def standardize(x):
    """Zero-mean, unit-variance columns. x: (n, d) -> (n, d)."""
    return (x - x.mean(axis=0)) / x.std(axis=0)


data = np.arange(12.0).reshape(4, 3) ** 1.5
print("numpy:\n", standardize(data))
print("jax.numpy:\n", standardize(jnp.asarray(data)))
print(
    "same values:",
    np.allclose(standardize(data), standardize(jnp.asarray(data)), atol=1e-5),
)
print("result type:", type(standardize(jnp.asarray(data))))
