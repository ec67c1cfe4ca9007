"""Keep the carry fixed-size; emit per-step values as ys for scan to stack."""

import jax.numpy as jnp
from jax import lax


def step(total, x):
    """total: scalar carry, x: scalar -> (new total, the value to record)."""
    total = total + x
    return total, total


final, history = lax.scan(step, 0.0, jnp.arange(4.0))
print("final:", final, "| history:", history, "shape", history.shape)
