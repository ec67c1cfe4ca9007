from functools import partial

import jax
import jax.numpy as jnp

traces = 0


@partial(jax.jit, static_argnames="n")
def positions(x, n):
    """The first n positions, scaled by x. x: (), n: int (static) -> (n,)."""
    global traces
    traces += 1
    return x * jnp.arange(n)  # n is a plain Python int here


print(positions(2.0, n=4), "| traces:", traces)
print(positions(3.0, n=4), "| traces:", traces, "(same n: cached)")
print(positions(2.0, n=6), "| traces:", traces, "(new n: retraced)")
print(positions(2.0, 6), "| traces:", traces, "(n by position: retraced)")
