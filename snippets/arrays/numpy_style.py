import jax
import jax.numpy as jnp
import numpy as np

np.set_printoptions(precision=3, suppress=True)


def standardize(x):
    """Zero-mean, unit-variance columns. x: (n, d) -> (n, d)."""
    return (x - x.mean(axis=0)) / x.std(axis=0)


data = np.arange(12.0).reshape(4, 3) ** 1.5
a, b = standardize(data), standardize(jnp.asarray(data))
print("numpy:\n", a)
print("jax.numpy:\n", b)
print("numpy result:     jax.Array?", isinstance(a, jax.Array), " ", a.dtype)
print("jax.numpy result: jax.Array?", isinstance(b, jax.Array), " ", b.dtype)
print("equal to 6 decimals:", np.allclose(a, b, rtol=0, atol=1e-6))
print("equal bit for bit:", np.array_equal(a, b))
