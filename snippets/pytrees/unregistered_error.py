# raises: TypeError
# match: is not a valid JAX type
import dataclasses

import jax
import jax.numpy as jnp


@dataclasses.dataclass
class Dense:  # not registered: JAX sees one opaque leaf
    w: jax.Array
    b: jax.Array


def loss(layer, x):
    """x: (n, 3) -> scalar."""
    return jnp.mean((x @ layer.w + layer.b) ** 2)


layer = Dense(w=jnp.ones((3, 2)), b=jnp.zeros(2))
leaves = jax.tree.leaves(layer)
print(
    "number of leaves:",
    len(leaves),
    "| the leaf is a",
    type(leaves[0]).__name__,
)
jax.grad(loss)(layer, jnp.ones((5, 3)))
