import time

import jax

from _mlp import init_mlp, mlp
from _timing import fastest_seconds

params = init_mlp(jax.random.key(0), [64] * 21)  # 20 layers
x = jax.random.normal(jax.random.key(1), (16, 64))

t0 = time.perf_counter()
lowered = jax.jit(mlp).lower(params, x)  # trace, emit the program for XLA
t1 = time.perf_counter()
compiled = lowered.compile()  # XLA compiles for this shape and dtype
t2 = time.perf_counter()
run = fastest_seconds(lambda: compiled(params, x), repeats=21)

print("measured on the build machine:")
print(f"  trace + lower: {1e3 * (t1 - t0):7.2f} ms")
print(f"  compile:       {1e3 * (t2 - t1):7.2f} ms")
print(f"  one run:       {1e3 * run:7.2f} ms  (fastest of 21)")
print("output:", compiled(params, x).shape)
print("trace + lower more than 10x one run:", (t1 - t0) / run > 10)
print("compile more than 10x one run:", (t2 - t1) / run > 10)
