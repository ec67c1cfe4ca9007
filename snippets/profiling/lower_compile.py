import time

import jax

from snippets.profiling._mlp import init_mlp, mlp

params = init_mlp(jax.random.key(0), [64] * 21)  # 20 layers
x = jax.random.normal(jax.random.key(1), (16, 64))

t0 = time.perf_counter()
lowered = jax.jit(mlp).lower(params, x)  # trace, emit the program for XLA
t1 = time.perf_counter()
compiled = lowered.compile()  # XLA compiles for this shape and dtype
t2 = time.perf_counter()
for _ in range(100):
    out = compiled(params, x)  # only runs
out.block_until_ready()
t3 = time.perf_counter()

print("measured on the build machine:")
print(f"  trace + lower: {1e3 * (t1 - t0):7.2f} ms")
print(f"  compile:       {1e3 * (t2 - t1):7.2f} ms")
print(f"  one run:       {1e3 * (t3 - t2) / 100:7.2f} ms  (mean of 100)")
print("output:", out.shape)
