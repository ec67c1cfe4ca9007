import jax
import jax.numpy as jnp
from jax import lax


@jax.jit
def cumulative(x):
    """Running sum by a loop. x: (n,) -> scalar."""

    def body(i, total):
        print(f"  step {i}: total = {total}")  # a Python print
        return total + x[i]

    return lax.fori_loop(0, x.shape[0], body, 0.0)


x = jnp.array([1.0, 2.0, 3.0])
print("jit:")
print("result", cumulative(x))
print("inside jax.disable_jit():")
with jax.disable_jit():
    print("result", cumulative(x))
