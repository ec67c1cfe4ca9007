import statistics
import time

import jax
import jax.numpy as jnp


def gelu(x):
    """Tanh approximation of GELU. x: any shape -> same shape."""
    return 0.5 * x * (1 + jnp.tanh(0.7978845608 * (x + 0.044715 * x**3)))


def ms(fn, x):
    """Milliseconds for one call, waiting for the result to be ready."""
    start = time.perf_counter()
    fn(x).block_until_ready()
    return 1e3 * (time.perf_counter() - start)


gelu_jit = jax.jit(gelu)
x = jax.random.normal(jax.random.key(0), (100, 100))

first = ms(gelu_jit, x)  # trace + compile + run
ms(gelu, x)  # eager's first call has one-off costs too: not counted
# 21 calls of each, in turns, so that a busy moment slows both
calls = [(ms(gelu_jit, x), ms(gelu, x)) for _ in range(21)]
cached, eager = [statistics.median(times) for times in zip(*calls)]

print("one call of gelu   time [ms]  × a cached call")
rows = {"jit, first call": first, "jit, cached": cached, "eager": eager}
for label, t in rows.items():
    print(f"{label:18s} {t:9.2f}  {t / cached:15.1f}")
print()
print("first call costs over 10 cached calls:", first > 10 * cached)
print("jit over 2x faster than eager:        ", eager > 2 * cached)
same = jnp.allclose(gelu(x), gelu_jit(x), atol=1e-6)
print("same results, to float32 rounding:    ", same)
