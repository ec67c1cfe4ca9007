# platform: tpu differs -- A TPU computes the logarithm inside `random.normal` with its own approximation, so the draws differ in the last digits (up to 2e-5) and the printed columns shift with them; the same key still gives the same draws
import jax
import jax.numpy as jnp

# Reusing a key on purpose: turn off the checker the notebooks turn on.
jax.config.update("jax_debug_key_reuse", False)


def add_noise(x, key, scale=0.1):
    """Gaussian noise augmentation. x: (n,) -> (n,)."""
    return x + scale * jax.random.normal(key, x.shape)


key = jax.random.key(0)
x = jnp.zeros(5)
view_1 = add_noise(x, key)  # "two independent augmentations"...
view_2 = add_noise(x, key)  # ...with the same key
print("view 1:", view_1)
print("view 2:", view_2)
print("identical:", jnp.array_equal(view_1, view_2))

w1 = jax.random.normal(key, (3,))  # layer 1 init
# layer 2 init: a longer draw from the same key
w2 = jax.random.normal(key, (5,))
print("w1:", w1)
print("w2:", w2, "<- overlaps with w1?", jnp.allclose(w1, w2[:3]))
