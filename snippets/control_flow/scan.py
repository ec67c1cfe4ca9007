"""lax.scan(f, init, xs): f(carry, x) -> (carry, y); returns (carry, ys)."""

import jax.numpy as jnp
from jax import lax


def step(carry, x):
    """carry: (total, max), x: () -> (new carry, per-step output)."""
    total, best = carry
    total, best = total + x, jnp.maximum(best, x)
    return (total, best), (total, best)


xs = jnp.array([3.0, -1.0, 4.0, 1.0, -5.0, 9.0])
(total, best), (totals, bests) = lax.scan(step, (0.0, -jnp.inf), xs)

print("final carry:", total, best)
print("totals:", totals, "| jnp.cumsum:", jnp.cumsum(xs))
print("bests: ", bests, "| lax.cummax:", lax.cummax(xs))
