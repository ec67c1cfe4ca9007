# platform: gpu,tpu differs -- There the default float32 matrix product is rounded: in one bfloat16 pass on a TPU, in TF32 on recent NVIDIA GPUs

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

ka, kb = jax.random.split(jax.random.key(0))
a = jax.random.normal(ka, (64, 64)) / 8.0  # entries of a @ b are O(1)
b = jax.random.normal(kb, (64, 64))
exact = np.asarray(a, np.float64) @ np.asarray(b, np.float64)


def matmul(a, b):
    """a @ b at the default precision. a: (m, k), b: (k, n) -> (m, n)."""
    return a @ b


def matmul_highest(a, b):
    """a @ b, asking for full float32 precision on every backend."""
    return jnp.matmul(a, b, precision="highest")


def asked_precision(fn):
    """The precision that the dot_general in fn's jaxpr asks for."""
    return jax.make_jaxpr(fn)(a, b).eqns[0].params["precision"]


def rounded_inputs(mantissa_bits):
    """a @ b after rounding a and b to mantissa_bits: one reduced pass.

    The products are summed in float32, as accelerators do, at "highest" so
    that a TPU does not round the rounded inputs again. -> (m, n).
    """
    a_r, b_r = (lax.reduce_precision(m, 8, mantissa_bits) for m in (a, b))
    return jnp.matmul(
        a_r, b_r, precision="highest", preferred_element_type=jnp.float32
    )


asked = {
    "a @ b": asked_precision(matmul),
    "precision='highest'": asked_precision(matmul_highest),
}
with jax.default_matmul_precision("float32"):
    asked["a @ b in default_matmul_precision"] = asked_precision(matmul)
    in_context = jax.jit(matmul)(a, b)
print("what each program asks the compiler for:")
for name, precision in asked.items():
    print(f"  {name:34} {precision}")

default = jax.jit(matmul)(a, b)
same = jnp.array_equal(default, jax.jit(matmul_highest)(a, b))
same &= jnp.array_equal(default, in_context)
backend = jax.default_backend()  # "cpu" where this book is built
print(f"on this {backend}, all three give the same bits:", bool(same))
print()
print("inputs rounded like          relative error  allclose(atol=1e-6)")
cases = {
    f"default on this {backend}": default,
    "TF32 (A100/H100 default)": rounded_inputs(10),
    "bfloat16 (TPU default)": rounded_inputs(7),
}
for name, product in cases.items():
    error = np.max(np.abs(np.asarray(product) - exact)) / np.max(np.abs(exact))
    shown = "< 1e-6" if error < 1e-6 else f"{error:.0e}"
    close = np.allclose(product, exact, atol=1e-6)
    print(f"{name:28} {shown:>14}  {close}")
