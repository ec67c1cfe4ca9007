import jax
import jax.numpy as jnp
from jax import lax

H, LAYERS = 256, 4  # a state of 256 float32 (1 KiB), four layers per step
LENGTHS = (256, 512, 1024)
BODIES = ("plain", "checkpoint", "save dots")


def loss(ws, h0, xs, body):
    """Sum of the last state of a scan over xs.

    ws: (layers, H, H), h0: (H,), xs: (steps, H) -> ().
    """

    def step(h, x):
        """Four tanh layers. (H,), (H,) -> (H,), None."""
        for w in ws:
            h = jnp.tanh(h @ w + x)
        return h, None

    if body == "checkpoint":  # keep the step's input, the carry
        step = jax.checkpoint(step)
    elif body == "save dots":  # and the results of its matrix products
        dots = jax.checkpoint_policies.dots_saveable
        step = jax.checkpoint(step, policy=dots)
    h, _ = lax.scan(step, h0, xs)
    return jnp.sum(h)


def temp_kib(steps, body):
    """Scratch memory of the compiled gradient, in KiB."""
    ws, h0 = jnp.zeros((LAYERS, H, H)), jnp.zeros(H)
    xs = jnp.zeros((steps, H))
    grad = jax.jit(jax.grad(loss), static_argnums=3)
    compiled = grad.lower(ws, h0, xs, body).compile()
    return compiled.memory_analysis().temp_size_in_bytes / 2**10


kib = {n: [temp_kib(n, body) for body in BODIES] for n in LENGTHS}
print("steps  temp KiB:" + "".join(f"{body:>12}" for body in BODIES))
for n, row in kib.items():
    print(f"{n:5d}  {'':9}" + "".join(f"{k:12.0f}" for k in row))
first, last = LENGTHS[0], LENGTHS[-1]
per_step = [(b - a) / (last - first) for a, b in zip(kib[first], kib[last])]
print("KiB per step:   " + "".join(f"{k:12.1f}" for k in per_step))
