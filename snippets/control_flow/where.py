"""jnp.where selects elementwise; both inputs are computed everywhere."""

import jax
import jax.numpy as jnp


@jax.jit
def leaky_relu(x):
    """x: any shape -> same shape."""
    return jnp.where(x > 0, x, 0.01 * x)


print("leaky_relu:", leaky_relu(jnp.array([-2.0, -0.5, 0.0, 3.0])))


def sqrt_or_zero(x):
    """sqrt(x) for x > 0, else 0. Scalar -> scalar."""
    return jnp.where(x > 0, jnp.sqrt(x), 0.0)


def sqrt_or_zero_safe(x):
    """Same value, but sqrt never sees a negative input."""
    safe_x = jnp.where(x > 0, x, 1.0)
    return jnp.where(x > 0, jnp.sqrt(safe_x), 0.0)


# The unused branch still enters the gradient: d sqrt(x)/dx at x = -1 is nan,
# and 0 * nan = nan.
print("grad at -1, naive:", jax.grad(sqrt_or_zero)(-1.0))
print("grad at -1, safe: ", jax.grad(sqrt_or_zero_safe)(-1.0))
print("grad at  4, safe: ", jax.grad(sqrt_or_zero_safe)(4.0))
