"""A two-layer MLP's parameters: a dict of a list of dicts and a tuple."""

import jax
import jax.numpy as jnp

params = {
    "layers": [
        {"w": jnp.ones((3, 4)), "b": jnp.zeros(4)},
        {"w": jnp.ones((4, 2)), "b": jnp.zeros(2)},
    ],
    "output_scale": (jnp.float32(1.0), jnp.float32(0.0)),  # (gain, bias)
}

leaves = jax.tree.leaves(params)
print("number of leaves:", len(leaves))
print("total parameters:", sum(leaf.size for leaf in leaves))
for path, leaf in jax.tree.leaves_with_path(params):
    print(f"{jax.tree_util.keystr(path):22s} shape={leaf.shape}")
