import jax
import jax.numpy as jnp

with jax.enable_x64(True):
    print("float:", jnp.array([1.5]).dtype, "  int:", jnp.array([1]).dtype)
    print("1 + 1e-12 == 1?", bool(jnp.array(1.0) + 1e-12 == 1.0))
print("after the block:", jnp.array([1.5]).dtype)
