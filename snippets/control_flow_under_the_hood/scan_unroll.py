# platform: tpu differs -- A TPU v5e (JAX 0.10.2) took 1.43x as long to compile `unroll=16`, not more than 1.5x; the results agree, and a rolled step also took under a microsecond. That JAX version, on any backend, lowers the 16 unrolled steps as calls to one shared body (one tanh in the lowered text, 16 in the compiled program), so the version, not the chip, may explain part of the smaller ratio
# platform: gpu differs -- A rolled step costs a GPU microseconds of kernel launches (an H200 takes about 11.8 ms for the 1024 steps)

"""lax.scan(..., unroll=k): k copies of the body in each trip of the loop."""

import jax
import jax.numpy as jnp
from jax import lax

from snippets.profiling._timing import median_seconds

T = 1024  # steps, a multiple of 16


def rnn(unroll):
    """A tanh RNN scanned over xs with this unroll.

    w: (16, 16), h: (16,), xs: (T, 16) -> final h: (16,).
    """

    def run(w, h, xs):
        def step(h, x):
            return jnp.tanh(w @ h + x), None

        h, _ = lax.scan(step, h, xs, unroll=unroll)
        return h

    return run


kw, kx = jax.random.split(jax.random.key(0))
w = jax.random.normal(kw, (16, 16)) / 4
h, xs = jnp.zeros(16), jax.random.normal(kx, (T, 16))
unrolls = {"rolled": 1, "unroll=16": 16}

for name, unroll in unrolls.items():
    text = jax.jit(rnn(unroll)).lower(w, h, xs).as_text()
    print(f"{name:9}  tanh ops in the program: {text.count('stablehlo.tanh')}")
results = [jax.jit(rnn(u))(w, h, xs) for u in unrolls.values()]
print("same result:", jnp.allclose(*results, atol=1e-6))

compile_s = median_seconds(
    {
        name: lambda u=u: jax.jit(rnn(u)).lower(w, h, xs).compile()
        for name, u in unrolls.items()
    },
    repeats=5,
)
compiled = {
    name: jax.jit(rnn(u)).lower(w, h, xs).compile()
    for name, u in unrolls.items()
}
run_s = median_seconds(
    {name: lambda f=f: f(w, h, xs) for name, f in compiled.items()},
    repeats=51,
)
print()
print(f"median times, T = {T} steps, measured on the build machine:")
print("                    compile [ms]  run [ms]")
for name in unrolls:
    print(
        f"{name:18}  {1e3 * compile_s[name]:12.2f}  {1e3 * run_s[name]:8.3f}"
    )
print(
    f"{'unroll=16 / rolled':18}  "
    f"{compile_s['unroll=16'] / compile_s['rolled']:12.2f}"
    f"  {run_s['unroll=16'] / run_s['rolled']:8.2f}"
)
print()
slower = compile_s["unroll=16"] / compile_s["rolled"] > 1.5
print(
    "unroll=16 took",
    "more" if slower else "less",
    "than 1.5x as long to compile as the rolled loop.",
)
fast = run_s["rolled"] / T < 1e-6
print(
    f"The rolled loop took {'under' if fast else 'over'} a microsecond per",
    f"step on this {jax.default_backend()}.",
)
