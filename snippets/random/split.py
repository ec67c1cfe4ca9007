# platform: tpu differs -- A TPU computes the logarithm inside `random.normal` with its own approximation, so the draws differ in the last digits (up to 2e-5) and the printed columns shift with them; the same key still gives the same draws
import jax
import jax.numpy as jnp


def add_noise(x, key, scale=0.1):
    """Gaussian noise augmentation. x: (n,) -> (n,)."""
    return x + scale * jax.random.normal(key, x.shape)


key = jax.random.key(0)
# keep one key for later, consume the others
key, k1, k2 = jax.random.split(key, 3)
x = jnp.zeros(5)
view_1, view_2 = add_noise(x, k1), add_noise(x, k2)
print("view 1:", view_1)
print("view 2:", view_2)
print("identical:", jnp.array_equal(view_1, view_2))

keys = jax.random.split(key, 4)  # many keys at once: an array of keys
print("split(key, 4): shape", keys.shape, " dtype", keys.dtype)
noise = jax.vmap(lambda k: jax.random.normal(k, ()))(keys)  # one draw per key
print("one draw per key:", noise)
