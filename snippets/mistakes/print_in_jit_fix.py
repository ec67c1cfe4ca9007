import jax
import jax.numpy as jnp


@jax.jit
def double_sum(x):
    """Sum of 2 * x, plus the intermediate 2 * x. x: (n,) -> (scalar, (n,))."""
    doubled = 2 * x
    # runs on every call
    jax.debug.print("debug.print inside jit: {d}", d=doubled)
    return jnp.sum(doubled), doubled  # return what you want to keep


kept = []
for i in range(3):
    out, doubled = double_sum(jnp.full(3, float(i)))
    kept.append(doubled)
print("kept:", jnp.stack(kept))
