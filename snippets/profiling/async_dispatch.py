import statistics
import time

import jax

a = jax.random.normal(jax.random.key(0), (800, 800))
cube = jax.jit(lambda a: (a @ a) @ a)  # about 2 GFLOP
cube(a).block_until_ready()  # compile outside the timings

queued, done, ready = [], [], []
for _ in range(5):
    start = time.perf_counter()
    out = cube(a)  # returns once the work is queued
    queued.append(time.perf_counter() - start)
    ready.append(out.is_ready())
    out.block_until_ready()  # waits for the result
    done.append(time.perf_counter() - start)

print("measured on the build machine, median of 5 calls:")
print(
    "  timer without block_until_ready: "
    f"{1e3 * statistics.median(queued):7.2f} ms"
)
print(
    f"  timer with block_until_ready:    {1e3 * statistics.median(done):7.2f} "
    "ms"
)
# not all(ready): a result can be done first if this thread is paused
print("a call returned before its result was ready:", not all(ready))
