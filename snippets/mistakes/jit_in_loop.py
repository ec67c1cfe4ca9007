import jax
import jax.numpy as jnp

compiles = 0


def count_compiles(event, duration, **kwargs):
    """Count XLA compilations (a jax.monitoring listener)."""
    global compiles
    compiles += event == "/jax/core/compile/backend_compile_duration"


x = jnp.arange(3.0)
jax.monitoring.register_event_duration_secs_listener(count_compiles)

for _ in range(5):
    y = jax.jit(lambda x: 2 * x + 1)(x)  # a new function at every pass
print("jit inside the loop, 5 calls:", compiles, "compiles")

compiles = 0
affine = jax.jit(lambda x: 2 * x + 1)  # jitted once, outside the loop
for _ in range(5):
    y = affine(x)
print("jit once, 5 calls:           ", compiles, "compile")
