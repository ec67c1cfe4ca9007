"""The first tree given to jax.tree.map is a prefix: f receives subtrees."""

import jax
import jax.numpy as jnp

grads = {"encoder": [jnp.ones(2), jnp.ones(3)], "head": jnp.ones(2)}
lr = {"encoder": 0.01, "head": 0.1}  # one leaf per group: a prefix of grads


def scale_group(lr, group):
    """lr: a float, group: a subtree of arrays -> the subtree times -lr."""
    return jax.tree.map(lambda g: -lr * g, group)


print(jax.tree.map(scale_group, lr, grads))
