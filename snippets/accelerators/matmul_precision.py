# platform: gpu,tpu differs -- There the default float32 matrix product is rounded: in one bfloat16 pass on a TPU, in TF32 on recent NVIDIA GPUs
import jax
import jax.numpy as jnp
import numpy as np

ka, kb = jax.random.split(jax.random.key(0))
a = jax.random.normal(ka, (64, 64)) / 8.0  # entries of a @ b are O(1)
b = jax.random.normal(kb, (64, 64))
exact = np.asarray(a, np.float64) @ np.asarray(b, np.float64)


def relative_error(product):
    """Largest error of a (m, n) product, relative to its largest entry."""
    error = np.abs(np.asarray(product, np.float64) - exact)
    return np.max(error) / np.max(np.abs(exact))


def matmul(a, b):
    """a @ b at the precision in force. a: (m, k), b: (k, n) -> (m, n)."""
    return a @ b


products = {
    "default": jax.jit(matmul)(a, b),
    "precision='highest'": jnp.matmul(a, b, precision="highest"),
}
with jax.default_matmul_precision("float32"):
    products["default_matmul_precision('float32')"] = jax.jit(matmul)(a, b)

head = f"on this {jax.default_backend()}:"
print(f"{head:42}error  allclose(atol=1e-6)")
for name, product in products.items():
    error = relative_error(product)
    shown = "< 1e-6" if error < 1e-6 else f"{error:.1e}"
    close = np.allclose(product, exact, atol=1e-6)
    print(f"  {name:37} {shown:>7}  {close}")
