"""jax.tree.map applies f leaf by leaf and returns a tree of the same shape."""

import jax
import jax.numpy as jnp

params = {
    "layers": [
        {"w": jnp.ones((3, 4)), "b": jnp.zeros(4)},
        {"w": jnp.ones((4, 2)), "b": jnp.zeros(2)},
    ],
}
grads = jax.tree.map(lambda p: 0.5 * jnp.ones_like(p), params)

# One tree: a function of one leaf.
print("shapes:", jax.tree.map(jnp.shape, params))

# Several trees with the same structure: a function of matching leaves.
lr = 0.1
new_params = jax.tree.map(lambda p, g: p - lr * g, params, grads)
print("updated first w[0]:", new_params["layers"][0]["w"][0])
print("updated last b:", new_params["layers"][1]["b"])
