# platform: tpu rtol=5e-6 -- A TPU computes the logarithm inside `random.normal` with its own approximation, so the last digits move (1.2e-6 here)
"""The global norm of a gradient pytree: the L2 norm of all its leaves."""

import jax
import jax.numpy as jnp
import optax


def global_norm(tree):
    """sqrt of the sum of squares of every element of every leaf -> scalar."""
    return jnp.sqrt(sum(jnp.sum(leaf**2) for leaf in jax.tree.leaves(tree)))


k1, k2, k3 = jax.random.split(jax.random.key(0), 3)
grads = {
    "layers": [
        {"w": jax.random.normal(k1, (3, 8)), "b": jax.random.normal(k2, (8,))}
    ],
    "head": jax.random.normal(k3, (8,)),
}

flat = jnp.concatenate([leaf.ravel() for leaf in jax.tree.leaves(grads)])
print("global norm:          ", global_norm(grads))
print("norm of concatenation:", jnp.linalg.norm(flat))
print("optax.tree.norm:      ", optax.tree.norm(grads))
