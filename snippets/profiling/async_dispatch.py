# platform: gpu,tpu differs -- A GPU or TPU queues even the tiny call, so the last line prints False there

import time

import jax
import jax.numpy as jnp

# tens of milliseconds of work: 7 GFLOP for a CPU, 2 TFLOP for a GPU or TPU
n = 1200 if jax.default_backend() == "cpu" else 8192
a = jax.random.normal(jax.random.key(0), (n, n))
cube = jax.jit(lambda a: (a @ a) @ a)
cube(a).block_until_ready()  # compile outside the timings

queued, done, ready = [], [], []
for _ in range(7):
    start = time.perf_counter()
    out = cube(a)  # returns once the work is queued
    queued.append(time.perf_counter() - start)
    ready.append(out.is_ready())
    out.block_until_ready()  # waits for the result
    done.append(time.perf_counter() - start)
# the fastest of 7: a call the busy machine did not interrupt
queued, done = min(queued), min(done)

print("measured on the build machine, fastest of 7 calls:")
print(f"  timer without block_until_ready: {1e3 * queued:7.2f} ms")
print(f"  timer with block_until_ready:    {1e3 * done:7.2f} ms")
print("without waiting, the timer read under a tenth:", queued < 0.1 * done)
# not all(ready): a result can be done first if this thread is paused
print("a call returned before its result was ready:", not all(ready))

add_one = jax.jit(lambda v: v + 1)  # a handful of FLOPs
v = jnp.zeros(4)
add_one(v).block_until_ready()
print(
    "a tiny call returned with its result ready:",
    all(add_one(v).is_ready() for _ in range(7)),
)
