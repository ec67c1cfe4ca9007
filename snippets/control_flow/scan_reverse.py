"""lax.scan(..., reverse=True): from the last element to the first."""

import jax.numpy as jnp
from jax import lax


def running_sum(total, x):
    """carry: (), x: () -> (new carry, per-step output): the sum so far."""
    total = total + x
    return total, total


def step_number(i, x):
    """carry: step count (), x: () -> (count + 1, the step that saw x)."""
    return i + 1, i


xs = jnp.array([3.0, -1.0, 4.0, 1.0, -5.0, 9.0])
total, sums = lax.scan(running_sum, 0.0, xs, reverse=True)
_, steps = lax.scan(step_number, 0, xs, reverse=True)
reference = jnp.cumsum(xs[::-1])[::-1]

print("xs:                    ", xs)
print("step that reads each x: ", steps)
print("sums, reverse=True:     ", sums)
print("cumsum(xs[::-1])[::-1]: ", reference)
print("equal:", jnp.array_equal(sums, reference), "| final carry:", total)
