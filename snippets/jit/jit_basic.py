import statistics
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
x = jax.random.normal(jax.random.key(0), (100, 100))

first = timed(gelu_jit, x)  # trace + compile + run
gelu(x).block_until_ready()  # warm-up: eager mode compiles each op once
eager, cached = [], []
for _ in range(21):  # alternate the two, so a busy moment hits both
    eager.append(timed(gelu, x))
    cached.append(timed(gelu_jit, x))
eager_ms, cached_ms = statistics.median(eager), statistics.median(cached)

print("(measured on the build machine; cached and eager: medians of 21)")
print(f"jit, first call (trace + compile + run): {first:7.2f} ms")
print(f"jit, cached program:                     {cached_ms:7.2f} ms")
print(f"eager, one dispatch per operation:       {eager_ms:7.2f} ms")
print("first call > 10x a cached call:", first > 10 * cached_ms)
print("jit > 2x faster than eager:    ", eager_ms > 2 * cached_ms)
print("eager and jit allclose:", jnp.allclose(gelu(x), gelu_jit(x), atol=1e-6))
