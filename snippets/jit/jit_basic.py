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

# medians of 21 calls; the last column divides by a cached call's time
print(f"{'one call of gelu':18s} {'time [ms]':>10s}  {'× a cached call':>15s}")
for label, ms in [
    ("jit, first call", first),  # trace + compile + run
    ("jit, cached", cached_ms),
    ("eager", eager_ms),  # one dispatch per operation
]:
    print(f"{label:18s} {ms:10.2f}  {ms / cached_ms:15.1f}")
same = jnp.allclose(gelu(x), gelu_jit(x), atol=1e-6)
print()
print("first call costs over 10 cached calls:", first > 10 * cached_ms)
print("jit over 2x faster than eager:        ", eager_ms > 2 * cached_ms)
print("same results, to float32 rounding:    ", same)
