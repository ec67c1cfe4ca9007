"""Flatten a pytree into (leaves, structure) and rebuild it from new leaves."""

import jax
import jax.numpy as jnp

params = {
    "w": jnp.ones((3, 2)),
    "b": jnp.zeros(2),
    "extra": [jnp.ones(1), (jnp.ones(1),)],
}

leaves, treedef = jax.tree.flatten(params)
print("structure:", treedef)
print("same as jax.tree.structure:", treedef == jax.tree.structure(params))
print("num_leaves:", treedef.num_leaves)

rebuilt = jax.tree.unflatten(treedef, [2.0 * leaf for leaf in leaves])
print("rebuilt b:", rebuilt["b"], "| rebuilt w[0]:", rebuilt["w"][0])

# None is an empty subtree, not a leaf; a list and a tuple are different
# structures.
print(
    "leaves of {'a': ones(2), 'b': None}:",
    len(jax.tree.leaves({"a": jnp.ones(2), "b": None})),
)
print(
    "list == tuple structure:",
    jax.tree.structure([1.0, 2.0]) == jax.tree.structure((1.0, 2.0)),
)
