import jax
import jax.numpy as jnp

traces = 0


@jax.jit
def normalize(x):
    """Scale x to unit norm. x: (n,) -> (n,)."""
    global traces
    traces += 1  # Python side effect: runs only while tracing
    return x / jnp.linalg.norm(x)


inputs = [
    ("float32 (3,)", jnp.array([3.0, 4.0, 0.0])),
    ("float32 (3,) new values", jnp.array([1.0, 1.0, 1.0])),
    ("float32 (4,)", jnp.array([1.0, 2.0, 3.0, 4.0])),
    ("float32 (3,) again", jnp.array([0.0, 0.0, 2.0])),
    ("float16 (3,)", jnp.array([3.0, 4.0, 0.0], dtype=jnp.float16)),
]
for label, x in inputs:
    normalize(x)
    print(f"{label:25s} -> traces so far: {traces}")
