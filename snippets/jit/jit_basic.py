import time

import jax
import jax.numpy as jnp


def gelu(x):
    """Tanh approximation of GELU. x: any shape -> same shape."""
    return 0.5 * x * (1 + jnp.tanh(0.7978845608 * (x + 0.044715 * x**3)))


def timed(fn, x):
    """Wall time of one call in ms, waiting for the result."""
    start = time.perf_counter()
    fn(x).block_until_ready()
    return 1e3 * (time.perf_counter() - start)


gelu_jit = jax.jit(gelu)
x = jax.random.normal(jax.random.key(0), (1000, 1000))

print(f"jit, call 1 (trace + compile + run): {timed(gelu_jit, x):7.2f} ms")
print(f"jit, call 2 (run the cached program): {timed(gelu_jit, x):7.2f} ms")
timed(gelu, x)  # warm-up: eager mode compiles each operation on first use
print(f"eager (one dispatch per operation):  {timed(gelu, x):7.2f} ms")
print("(measured on the build machine)")
print("eager and jit allclose:", jnp.allclose(gelu(x), gelu_jit(x), atol=1e-6))
