# platform: tpu differs -- This cell names the platform it ran on (tpu); a TPU v5e also took under a microsecond a step
# platform: gpu differs -- A rolled step costs a GPU microseconds of kernel launches (an H200 took 11.8 ms for the 1024 steps)
import jax
import jax.numpy as jnp
from jax import lax

from snippets.profiling._timing import median_seconds

T = 1024  # steps


def rnn(w, h, xs):
    """A tanh RNN, one scan step per row of xs, rolled.

    w: (16, 16), h: (16,), xs: (T, 16) -> final h: (16,).
    """

    def step(h, x):
        return jnp.tanh(w @ h + x), None

    return lax.scan(step, h, xs)[0]


kw, kx = jax.random.split(jax.random.key(0))
w = jax.random.normal(kw, (16, 16)) / 4
h, xs = jnp.zeros(16), jax.random.normal(kx, (T, 16))
run = jax.jit(rnn).lower(w, h, xs).compile()
seconds = median_seconds({"rolled": lambda: run(w, h, xs)}, repeats=51)
per_step = seconds["rolled"] / T
print(f"rolled scan of {T} steps on this {jax.default_backend()}:")
total = seconds["rolled"]
print(f"  {1e3 * total:.3f} ms in all, {1e6 * per_step:.3f} µs a step")
print("  under a microsecond a step:", per_step < 1e-6)
