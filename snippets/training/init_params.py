# platform: tpu rtol=2e-5 -- A TPU multiplies float32 matrices in one bfloat16 pass by default and computes the logarithm inside `random.normal` with its own approximation, so the last digits move (7.5e-6 here)
"""Data and parameters, each from its own key."""

import jax
import jax.numpy as jnp

from _model import init_params, loss_fn, make_data

key_data, key_params = jax.random.split(jax.random.key(0))
x, y = make_data(key_data)
params = init_params(key_params)

print("x:", x.shape, "y:", y.shape)
print("param shapes:", jax.tree.map(jnp.shape, params))
print("initial loss:", loss_fn(params, x, y))
_, same_key = jax.random.split(jax.random.key(0))  # key_params, re-derived
print(
    "same key, same params:",
    jax.tree.all(jax.tree.map(jnp.array_equal, params, init_params(same_key))),
)
