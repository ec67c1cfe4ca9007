# platform: gpu,tpu differs -- By default a TPU, and an NVIDIA GPU from the A100 on, rounds the inputs of a float32 matrix product to fewer bits (bfloat16 or TF32), and there the batched product and the five one-example products are not computed the same way, so the last line can print False: on a TPU v5e the two results differ by about 0.005. Computing inside `with jax.default_matmul_precision("float32"):` makes them agree there (about 1e-7 apart), and the line prints True
import jax
import jax.numpy as jnp


def predict(w, b, x):
    """tanh layer, ONE example. w: (d, k), b: (k,), x: (d,) -> (k,)."""
    return jnp.tanh(x @ w + b)


kw, kx = jax.random.split(jax.random.key(0))
w, b = jax.random.normal(kw, (3, 2)), jnp.zeros(2)
xs = jax.random.normal(kx, (5, 3))  # a batch of 5 examples

# map over axis 0 of xs; w and b are shared by every example
batched = jax.vmap(predict, in_axes=(None, None, 0))(w, b, xs)
looped = jnp.stack([predict(w, b, x) for x in xs])
print("batched shape:", batched.shape)
print("same as a Python loop:", jnp.allclose(batched, looped))
