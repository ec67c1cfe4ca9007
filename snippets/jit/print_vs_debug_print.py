import jax
import jax.numpy as jnp


@jax.jit
def step(x):
    """One update step. x: (2,) -> (2,)."""
    print("print:            x =", x)  # runs while tracing
    jax.debug.print("jax.debug.print: x = {}", x)  # runs on every call
    return x * 0.5


x = jnp.array([8.0, 4.0])
for i in range(3):
    print(f"--- call {i}")
    x = step(x).block_until_ready()
