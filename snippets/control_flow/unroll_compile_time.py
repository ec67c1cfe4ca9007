"""A Python loop under jit is unrolled; lax.scan keeps one copy of the body."""

import time

import jax
import jax.numpy as jnp
import matplotlib.pyplot as plt
from jax import lax


def cell(h, w):
    """One recurrent step. h: (16,), w: (16, 16) -> (16,)."""
    return jnp.tanh(w @ h)


def python_loop(n):
    """n steps written as a Python for loop."""

    def run(h, w):
        for _ in range(n):
            h = cell(h, w)
        return h

    return run


def scan_loop(n):
    """n steps with lax.scan."""

    def run(h, w):
        h, _ = lax.scan(lambda h, _: (cell(h, w), None), h, length=n)
        return h

    return run


def compile_seconds(fn, *args):
    """Wall time of tracing, lowering and compiling fn for these arguments."""
    start = time.perf_counter()
    jax.jit(fn).lower(*args).compile()
    return time.perf_counter() - start


h, w = jnp.ones(16), 0.3 * jnp.eye(16)
print(
    "same result (n=10):",
    jnp.allclose(jax.jit(python_loop(10))(h, w), jax.jit(scan_loop(10))(h, w)),
)
# warm-up: the first compilation pays one-off costs
compile_seconds(scan_loop(1), h, w)

lengths = [10, 20, 40, 80]
times = {"Python loop": [], "lax.scan": []}
print("compile time, measured on the build machine:")
print("     n  jaxpr eqns (loop/scan)  loop [s]  scan [s]")
for n in lengths:
    eqns = [
        len(jax.make_jaxpr(make(n))(h, w).eqns)
        for make in (python_loop, scan_loop)
    ]
    times["Python loop"].append(compile_seconds(python_loop(n), h, w))
    times["lax.scan"].append(compile_seconds(scan_loop(n), h, w))
    print(
        f"{n:6d}  {eqns[0]:10d} / {eqns[1]:<10d} "
        f"{times['Python loop'][-1]:8.3f}  {times['lax.scan'][-1]:8.3f}"
    )

fig, ax = plt.subplots(figsize=(6, 3.5))
for name, seconds in times.items():
    ax.plot(lengths, seconds, marker="o", label=name)
ax.set_xlabel("loop length n")
ax.set_ylabel("trace + compile time [s]")
ax.set_title("Compile time vs loop length (build machine)")
ax.legend()
fig.tight_layout()
plt.show()
