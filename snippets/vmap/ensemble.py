# platform: tpu rtol=1e-4 -- A TPU multiplies float32 matrices in one bfloat16 pass by default and computes the logarithm inside `random.normal` with its own approximation, so the last digits move (up to 3e-5)
import jax
import jax.numpy as jnp


def predict(params, x):
    """ONE linear model. params: {"w": (d,), "b": ()}, x: (d,) -> scalar."""
    return x @ params["w"] + params["b"]


n_models, d = 4, 3
kw, kx, kxs = jax.random.split(jax.random.key(0), 3)
ensemble = {
    # every leaf has a leading axis of 4
    "w": jax.random.normal(kw, (n_models, d)),
    "b": jnp.arange(n_models, dtype=jnp.float32),
}
x = jax.random.normal(kx, (d,))  # one input

# map over the models (axis 0 of every leaf); None: the same x for all of them
per_model = jax.vmap(predict, in_axes=(0, None))(ensemble, x)
print("one prediction per model:", per_model.shape, per_model)
print("ensemble mean:", per_model.mean())

xs = jax.random.normal(kxs, (5, d))  # now a batch of inputs too
# inner map: one model over every example; outer map: that, for every model
over_examples = jax.vmap(predict, in_axes=(None, 0))
grid = jax.vmap(over_examples, in_axes=(0, None))(ensemble, xs)
print("models x examples:", grid.shape)
