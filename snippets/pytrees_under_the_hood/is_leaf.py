import jax
import jax.numpy as jnp

# a layer as a (weight, bias) pair, and an optional part that is absent
params = {"dense": (jnp.ones((2, 3)), jnp.zeros(3)), "norm": None}
print("leaves:", len(jax.tree.leaves(params)))  # None is no leaf


def is_pair(node):
    """True for a (weight, bias) tuple: it is passed to f whole."""
    return isinstance(node, tuple)


pairs = jax.tree.leaves(params, is_leaf=is_pair)
print(
    "leaves with is_leaf=is_pair:",
    len(pairs),
    "of type",
    type(pairs[0]).__name__,
)
sizes = jax.tree.map(lambda p: p[0].size + p[1].size, params, is_leaf=is_pair)
print("parameters per layer:", sizes)
absent = jax.tree.map(lambda n: n is None, params, is_leaf=lambda n: n is None)
print("absent parts:", absent)
