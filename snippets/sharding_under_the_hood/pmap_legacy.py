import jax
import jax.numpy as jnp
from jax import lax

print("docstring:", jax.pmap.__doc__.splitlines()[0].replace(":py:func:", ""))

# pmap maps a function over the leading axis, one slice per device.
x = jnp.arange(float(jax.device_count()))  # one value per device
out = jax.pmap(lambda v: lax.psum(v, "i"), axis_name="i")(x)
print("pmap + psum:", out, "| on", len(out.sharding.device_set), "devices")
