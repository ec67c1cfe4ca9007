import jax
import jax.numpy as jnp

print("backend:", jax.default_backend())
print("devices:", jax.devices())
x = jnp.arange(4.0)
print("x lives on:", x.devices())
y = jax.device_put(x, jax.devices()[3])
print("y lives on:", y.devices())
print("y + 1 runs on:", (y + 1).devices())
