"""lax.fori_loop(lower, upper, body, init): a loop of known length."""

import jax
import jax.numpy as jnp
from jax import lax


def newton_sqrt(a, steps=6):
    """sqrt(a) by Newton's method, a fixed number of steps. () -> ()."""
    return lax.fori_loop(0, steps, lambda i, x: 0.5 * (x + a / x), a)


print("newton_sqrt(2.0):", newton_sqrt(2.0), "| jnp.sqrt:", jnp.sqrt(2.0))
# Python-int bounds: the length is known, so reverse mode works.
print(
    "grad:",
    jax.grad(newton_sqrt)(2.0),
    "| 1 / (2 sqrt 2):",
    0.5 / jnp.sqrt(2.0),
)
