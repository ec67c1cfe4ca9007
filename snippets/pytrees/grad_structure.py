"""grad over a parameter pytree returns gradients of the same structure."""

import jax
import jax.numpy as jnp


def init(key, sizes):
    """A list of {"w": (d_in, d_out), "b": (d_out,)} dicts, one per layer."""
    keys = jax.random.split(key, len(sizes) - 1)
    return [
        {
            "w": jax.random.normal(k, (d_in, d_out)) / jnp.sqrt(d_in),
            "b": jnp.zeros(d_out),
        }
        for k, d_in, d_out in zip(keys, sizes[:-1], sizes[1:])
    ]


def mlp(params, x):
    """x: (n, d_0) -> (n, d_last); tanh between layers."""
    for layer in params[:-1]:
        x = jnp.tanh(x @ layer["w"] + layer["b"])
    return x @ params[-1]["w"] + params[-1]["b"]


def loss(params, x, y):
    """Mean squared error. x: (n, 3), y: (n, 1) -> scalar."""
    return jnp.mean((mlp(params, x) - y) ** 2)


key_params, key_x = jax.random.split(jax.random.key(0))
params = init(key_params, [3, 8, 1])
x = jax.random.normal(key_x, (16, 3))
y = jnp.sum(x, axis=1, keepdims=True)

grads = jax.grad(loss)(params, x, y)
print(
    "same structure as params:",
    jax.tree.structure(grads) == jax.tree.structure(params),
)
print("grad shapes:", jax.tree.map(jnp.shape, grads))
