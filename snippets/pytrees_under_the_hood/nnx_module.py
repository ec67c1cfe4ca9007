"""A Flax NNX module: variables, a pytree, split/merge, jit vs nnx.jit."""

import jax
import jax.numpy as jnp
from flax import nnx


class Tied(nnx.Module):
    """Two attributes, ONE nnx.Linear(2, 3). Call: x (n, 2) -> (n, 3)."""

    def __init__(self, rngs):
        self.first = nnx.Linear(2, 3, rngs=rngs)
        self.second = self.first  # shared, not copied

    def __call__(self, x):
        """x: (n, 2) -> (n, 3)."""
        return self.second(x)


model = Tied(nnx.Rngs(0))
print("kernel:", type(model.first.kernel).__name__, model.first.kernel.shape)
print(
    "a pytree: jax.tree.leaves ->", [a.shape for a in jax.tree.leaves(model)]
)

graphdef, state = nnx.split(model)  # the shared layer appears once
print("nnx.split ->", type(graphdef).__name__, "and a", type(state).__name__)
print("  state:", jax.tree.map(jnp.shape, nnx.to_pure_dict(state)))
again = nnx.merge(graphdef, state)
print("nnx.merge keeps the sharing:", again.first is again.second)


def add_one_to_bias(model):
    """Changes model in place; returns the new bias sum."""
    model.first.bias[...] += 1.0
    return model.first.bias[...].sum()


for name, transform in [("jax.jit", jax.jit), ("nnx.jit", nnx.jit)]:
    model = Tied(nnx.Rngs(0))  # bias: zeros
    inside = transform(add_one_to_bias)(model)
    outside = model.first.bias[...].sum()
    print(f"{name}: bias sum inside {inside}, in the caller's model {outside}")
