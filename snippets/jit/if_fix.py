import jax
import jax.numpy as jnp
from jax import lax


@jax.jit
def relu_or_leak_where(x):
    """Both branches are computed; jnp.where picks one. x: (n,) -> (n,)."""
    return jnp.where(x.sum() > 0, jnp.maximum(x, 0.0), 0.1 * x)


@jax.jit
def relu_or_leak_cond(x):
    """lax.cond compiles both branches and runs one. x: (n,) -> (n,)."""
    return lax.cond(
        x.sum() > 0, lambda x: jnp.maximum(x, 0.0), lambda x: 0.1 * x, x
    )


for x in [jnp.array([1.0, -2.0, 3.0]), jnp.array([-1.0, -2.0, 3.0])]:
    print(
        "x:",
        x,
        " where:",
        relu_or_leak_where(x),
        " cond:",
        relu_or_leak_cond(x),
    )
