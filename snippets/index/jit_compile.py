import time

import jax
import jax.numpy as jnp

traces = 0


@jax.jit
def gelu_sum(x):
    """Sum of tanh-GELU activations. x: (n,) -> scalar."""
    global traces
    traces += 1  # Python side effect: runs only while JAX traces the function
    return jnp.sum(
        0.5 * x * (1 + jnp.tanh(0.7978845608 * (x + 0.044715 * x**3)))
    )


x = jnp.linspace(-3.0, 3.0, 100_000)
start = time.perf_counter()
# block_until_ready() waits for the result, so the time includes the work
gelu_sum(x).block_until_ready()  # trace + compile + run
first = time.perf_counter() - start
start = time.perf_counter()
for _ in range(10):
    out = gelu_sum(x).block_until_ready()  # run the cached XLA program
later = (time.perf_counter() - start) / 10
print("calls: 11, traces:", traces)
print(
    f"first call {first * 1e3:.1f} ms (trace + compile + run), "
    f"later calls {later * 1e3:.2f} ms each"
)
