"""lax.cond runs one of two functions, chosen by a traced boolean scalar."""

import jax
import jax.numpy as jnp
from jax import lax

# Python code runs only while tracing: each branch notes that it was traced.
traced = []


def positive_branch(x):
    """sqrt(x), announcing itself when traced and run. Scalar -> scalar."""
    traced.append("positive")
    jax.debug.print("    positive branch ran")
    return jnp.sqrt(x)


def negative_branch(x):
    """-x, announcing itself when traced and run. Scalar -> scalar."""
    traced.append("negative")
    jax.debug.print("    negative branch ran")
    return -x


def f(x):
    """sqrt(x) if x > 0 else -x. Scalar -> scalar."""
    return lax.cond(x > 0, positive_branch, negative_branch, x)


f_jit = jax.jit(f)
print("f(4.0):")
print("   ", f_jit(4.0))
print("traced by the first call:", traced)
program = f_jit.lower(4.0).compile().as_text()  # what XLA compiled
print("compiled: sqrt", "sqrt(" in program, "| negate", "negate(" in program)
print("f(-3.0):")
print("   ", f_jit(-3.0))
print("primitives:", [e.primitive.name for e in jax.make_jaxpr(f)(4.0).eqns])

# Under vmap the predicate is a batch of booleans: cond becomes a select, both
# branches run.
print("vmap(f)([4, -3]):")
print("   ", jax.vmap(f)(jnp.array([4.0, -3.0])))
names = [
    e.primitive.name for e in jax.make_jaxpr(jax.vmap(f))(jnp.ones(2)).eqns
]
print(
    "under vmap: 'cond' in jaxpr:",
    "cond" in names,
    "| 'select_n' in jaxpr:",
    "select_n" in names,
)
