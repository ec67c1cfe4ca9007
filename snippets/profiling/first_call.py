import time

import jax

from _mlp import init_mlp, mlp
from _timing import median_seconds

params = init_mlp(jax.random.key(0), [64] * 21)  # 20 layers
x = jax.random.normal(jax.random.key(1), (32, 64))
forward = jax.jit(mlp)

start = time.perf_counter()
forward(params, x).block_until_ready()  # traces, compiles, runs
first = time.perf_counter() - start
later = median_seconds({"call": lambda: forward(params, x)}, repeats=21)

print("measured on the build machine:")
print(f"  first call:                {1e3 * first:8.2f} ms")
print(f"  later calls, median of 21: {1e3 * later['call']:8.2f} ms")
print("first call more than 10x slower:", first / later["call"] > 10)
