import time

import jax

from snippets.profiling._mlp import init_mlp, mlp

params = init_mlp(jax.random.key(0), [64] * 21)  # 20 layers
x = jax.random.normal(jax.random.key(1), (32, 64))
forward = jax.jit(mlp)

for call in range(1, 4):
    start = time.perf_counter()
    forward(params, x).block_until_ready()
    print(
        f"call {call}: {1e3 * (time.perf_counter() - start):7.2f} ms  "
        "(measured on the build machine)"
    )
