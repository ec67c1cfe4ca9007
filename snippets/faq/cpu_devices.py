# platform: gpu,tpu differs -- This cell lists that machine's own backend and devices

import jax
import jax.numpy as jnp

print("backend:", jax.default_backend())
print("devices:", jax.devices())


@jax.jit
def softmax(z):
    """Numerically stable softmax. z: (n,) -> (n,)."""
    e = jnp.exp(z - z.max())
    return e / e.sum()


p = softmax(jnp.array([1.0, 2.0, 3.0]))
print("softmax:", p, " lives on:", p.devices())
