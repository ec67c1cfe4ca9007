# platform: tpu rtol=1e-4 -- A TPU computes float32 tanh with its own approximation, so the last digits differ (up to 3e-5)
# platform: gpu differs -- A GPU computes float32 tanh with its own approximation, so the last digits differ
from functools import partial

import jax
import jax.numpy as jnp
from jax import lax


@jax.jit
def relu_where(x):
    """max(x, 0) elementwise; both sides computed. x: (n,) -> (n,)."""
    return jnp.where(x > 0, x, 0.0)


@jax.jit
def relu_cond(x):
    """max(x, 0): lax.cond picks one of two functions. x: () -> ()."""
    return lax.cond(x > 0, lambda v: v, lambda v: jnp.zeros_like(v), x)


@jax.jit
def halvings(x):
    """Halvings of x until below 1, a traced loop. x: () -> () int."""
    count, _ = lax.while_loop(
        lambda c: c[1] >= 1.0, lambda c: (c[0] + 1, c[1] / 2), (0, x)
    )
    return count


@partial(jax.jit, static_argnames="kind")
def activation(x, kind):
    """A Python `if` on a static argument: one compile per `kind`.

    x: (n,) -> (n,).
    """
    if kind == "relu":
        return jnp.maximum(x, 0.0)
    return jnp.tanh(x)


x = jnp.array([-1.0, 0.5, 2.0])
print("jnp.where:      ", relu_where(x))
print("lax.cond:       ", relu_cond(2.0), relu_cond(-3.0))
print("lax.while_loop: ", halvings(20.0))
print(
    "static argument:", activation(x, kind="relu"), activation(x, kind="tanh")
)
