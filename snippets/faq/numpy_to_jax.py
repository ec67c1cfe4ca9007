import jax.numpy as jnp
import numpy as np


def standardize(x, xp):
    """Standardize columns with array module xp. x: (n, d) -> (n, d)."""
    return (x - xp.mean(x, axis=0)) / xp.std(x, axis=0)


data = [[1.0, 10.0], [2.0, 20.0], [4.0, 15.0]]
a = standardize(np.array(data), np)
b = standardize(jnp.array(data), jnp)
print("NumPy dtype:", a.dtype, "  jax.numpy dtype:", b.dtype)
print(np.asarray(b).round(4))
print("same values:", np.allclose(a, b, atol=1e-6))
