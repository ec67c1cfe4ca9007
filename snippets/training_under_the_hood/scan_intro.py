"""lax.scan(f, init, xs) computes what a Python loop over xs computes."""

import jax
import jax.numpy as jnp
from jax import lax

seen = []  # what add was called with


def add(total, x):
    """One step. total, x: () -> (new carry, per-step output)."""
    seen.append(x)
    total = total + x
    return total, total


def python_scan(f, init, xs):
    """The loop lax.scan stands for: carry through, stack the outputs."""
    carry, ys = init, []
    for x in xs:  # slices along the leading axis
        carry, y = f(carry, x)
        ys.append(y)
    return carry, jnp.stack(ys)


xs = jnp.array([3.0, -1.0, 4.0, 1.0])
for name, scan in [("Python loop", python_scan), ("lax.scan", lax.scan)]:
    seen.clear()
    carry, ys = jax.jit(scan, static_argnums=0)(add, 0.0, xs)  # f is static
    print(f"{name} under jit: final carry {carry}, outputs {ys}")
    print(f"  add traced {len(seen)} time(s), with {seen}")
    jaxpr = jax.make_jaxpr(scan, static_argnums=0)(add, 0.0, xs)
    print("  top-level operations:", [e.primitive.name for e in jaxpr.eqns])
