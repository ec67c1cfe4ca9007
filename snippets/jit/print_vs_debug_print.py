import jax
import jax.numpy as jnp


@jax.jit
def step(x):
    """One update step. x: (n,) -> (n,)."""
    print("print:            x =", x)  # runs while tracing
    jax.debug.print("jax.debug.print: x = {}", x)  # runs on every call
    return x * 0.5


x = jnp.array([8.0, 4.0])
for i in range(3):
    print(f"--- call {i}")
    x = step(x).block_until_ready()
print("--- call 3, new shape (3,): a new trace")
step(jnp.array([8.0, 4.0, 2.0])).block_until_ready()
