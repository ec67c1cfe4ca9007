# platform: tpu differs -- A TPU runs the jitted call asynchronously, so the `jax.debug.print` line can land inside the line that prints the value, after its indent, and push the value to the start of the next line; the branches that ran, the values and the traced list are the same
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
print("f(-3.0):")
print("   ", f_jit(-3.0))

# Under vmap the predicate is a batch of booleans: both branches run.
print("vmap(f)([4, -3]):")
print("   ", jax.vmap(f)(jnp.array([4.0, -3.0])))
