import jax
import jax.numpy as jnp

old = jnp.ones(2)  # created before x64 is on: float32
with jax.enable_x64(True):
    print("float:", jnp.array([1.5]).dtype, "  int:", jnp.array([1]).dtype)
    print("1 + 1e-12 == 1?", bool(jnp.array(1.0) + 1e-12 == 1.0))
    # an array made earlier keeps its dtype, and its float32 rounding
    lost = bool(old[0] + 1e-12 == 1.0)
    print("array made earlier:", old.dtype, "  1 + 1e-12 == 1?", lost)
print("after the block:", jnp.array([1.5]).dtype)
