import jax.numpy as jnp

print("1 + 1e-12 == 1?", bool(jnp.array(1.0) + 1e-12 == 1.0))
print("machine epsilon of float32:", jnp.finfo(jnp.float32).eps)
