# platform: tpu differs -- A TPU v5e's compiler takes about 80 ms even for the scan, so at n=80 the Python loop took 2.7x as long (0.213 s against 0.079 s), less than 3x; the lines about doubling print the same
"""A Python loop under jit is unrolled; lax.scan keeps one copy of the body."""

import jax
import jax.numpy as jnp
import matplotlib.pyplot as plt
from jax import lax

from snippets.profiling._timing import median_seconds


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


def compile_once(fn, *args):
    """Trace, lower and compile a new jit of fn for these arguments."""
    return jax.jit(fn).lower(*args).compile()


h, w = jnp.ones(16), 0.3 * jnp.eye(16)
print(
    "same result (n=10):",
    jnp.allclose(jax.jit(python_loop(10))(h, w), jax.jit(scan_loop(10))(h, w)),
)
for make in (python_loop, scan_loop):  # warm-up: first compiles pay extra
    compile_once(make(1), h, w)

lengths = [10, 20, 40, 80]
makers = {"Python loop": python_loop, "lax.scan": scan_loop}
# each call builds a new function, so nothing comes from a cache
calls = {
    (name, n): lambda make=make, n=n: compile_once(make(n), h, w)
    for name, make in makers.items()
    for n in lengths
}
seconds = median_seconds(calls, repeats=7)

print("compile time, median of 7, measured on the build machine:")
print("     n  jaxpr eqns (loop/scan)  loop [s]  scan [s]  loop/scan")
for n in lengths:
    eqns = [len(jax.make_jaxpr(m(n))(h, w).eqns) for m in makers.values()]
    loop, scan = seconds["Python loop", n], seconds["lax.scan", n]
    print(
        f"{n:6d}  {eqns[0]:10d} / {eqns[1]:<10d} "
        f"{loop:8.3f}  {scan:8.3f}  {loop / scan:9.1f}"
    )
print()
loop_growth = seconds["Python loop", 80] / seconds["Python loop", 10]
scan_growth = seconds["lax.scan", 80] / seconds["lax.scan", 10]
loop, scan = seconds["Python loop", 80], seconds["lax.scan", 80]
print(
    "From n=10 to n=80, the Python loop's compile time",
    "more than doubled;" if loop_growth > 2 else "did not double;",
    "lax.scan's",
    "less than doubled." if scan_growth < 2 else "doubled or more.",
)
print(
    "At n=80 the Python loop took",
    "more than 3x" if loop / scan > 3 else "less than 3x",
    "as long to compile as lax.scan.",
)

fig, ax = plt.subplots(figsize=(6, 3.5))
for name in makers:
    ax.plot(lengths, [seconds[name, n] for n in lengths], "o-", label=name)
ax.set_xlabel("loop length n")
ax.set_ylabel("trace + compile time [s]")
ax.set_title("Compile time vs loop length (build machine)")
ax.legend()
fig.tight_layout()
plt.show()
