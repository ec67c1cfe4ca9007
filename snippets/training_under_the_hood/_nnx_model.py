"""Step 7's 1 -> 32 -> 1 tanh MLP as a Flax NNX module, and its loss."""

import jax.numpy as jnp
from flax import nnx


class MLP(nnx.Module):
    """Two nnx.Linear layers, tanh between. Call: x (n, 1) -> (n, 1)."""

    def __init__(self, rngs):
        self.hidden = nnx.Linear(
            1, 32, rngs=rngs
        )  # kernel (1, 32), bias (32,)
        self.out = nnx.Linear(32, 1, rngs=rngs)  # kernel (32, 1), bias (1,)

    def __call__(self, x):
        """x: (n, 1) -> (n, 1)."""
        return self.out(jnp.tanh(self.hidden(x)))


def mse(model, x, y):
    """Mean squared error of the module. x, y: (n, 1) -> scalar."""
    return jnp.mean((model(x) - y) ** 2)


def as_layers(state):
    """An NNX State of MLP's parameters -> Step 7's [{"w", "b"}] * 2."""
    pure = nnx.to_pure_dict(state)  # nested dicts of plain arrays
    return [
        {"w": pure[k]["kernel"], "b": pure[k]["bias"]}
        for k in ("hidden", "out")
    ]
