# platform: tpu rtol=2e-3 -- A TPU multiplies float32 matrices in one bfloat16 pass by default and computes float32 tanh with its own approximation, so the gradient moves in the fourth digit (8e-4 here)
"""A registered dataclass: array fields are leaves, static fields are not."""

import dataclasses

import jax
import jax.numpy as jnp


@jax.tree_util.register_dataclass
@dataclasses.dataclass
class Dense:
    """Dense layer. w: (d_in, d_out), b: (d_out,); activation is static."""

    w: jax.Array
    b: jax.Array
    activation: str = jax.tree.static(default="tanh")

    def __call__(self, x):
        """x: (n, d_in) -> (n, d_out)."""
        y = x @ self.w + self.b
        return jnp.tanh(y) if self.activation == "tanh" else y


layer = Dense(w=jnp.full((3, 2), 0.1), b=jnp.zeros(2))
print("leaves:", [leaf.shape for leaf in jax.tree.leaves(layer)])
print("structure:", jax.tree.structure(layer))

doubled = jax.tree.map(lambda p: 2 * p, layer)
print(
    "tree.map returns a",
    type(doubled).__name__,
    "with activation",
    repr(doubled.activation),
)


def loss(layer, x):
    """Mean squared output. x: (n, 3) -> scalar."""
    return jnp.mean(layer(x) ** 2)


x = jnp.ones((5, 3))
g = jax.jit(jax.grad(loss))(layer, x)
print(
    "grad is a",
    type(g).__name__,
    "with activation",
    repr(g.activation),
    "| g.b:",
    g.b,
)
