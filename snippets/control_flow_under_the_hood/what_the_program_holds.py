"""What lax.cond and lax.fori_loop become in the jaxpr and the compiled
program."""

import jax
import jax.numpy as jnp
from jax import lax


def f(x):
    """sqrt(x) if x > 0 else -x. Scalar -> scalar."""
    return lax.cond(x > 0, jnp.sqrt, lambda x: -x, x)


def newton_sqrt(a, steps=6):
    """sqrt(a) by Newton's method, a fixed number of steps. () -> ()."""
    return lax.fori_loop(0, steps, lambda i, x: 0.5 * (x + a / x), a)


def primitives(fn, *args):
    """The names of the primitive operations in fn's jaxpr."""
    return [e.primitive.name for e in jax.make_jaxpr(fn)(*args).eqns]


program = jax.jit(f).lower(4.0).compile().as_text()  # what XLA compiled
print(
    "cond, compiled: sqrt",
    "sqrt(" in program,
    "| negate",
    "negate(" in program,
)
print("cond, jaxpr:", primitives(f, 4.0))
names = primitives(jax.vmap(f), jnp.ones(2))
print(
    "cond under vmap: 'cond'",
    "cond" in names,
    "| 'select_n'",
    "select_n" in names,
)
print("fori_loop with Python-int bounds:", primitives(newton_sqrt, 2.0))
