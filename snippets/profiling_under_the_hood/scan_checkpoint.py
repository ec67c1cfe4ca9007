# platform: tpu differs -- A TPU can report 0 bytes of temporaries for gradients this small (it does count a large model's), so every KiB-per-step figure reads 0.0
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


# the growth per step (the fixed part depends on the compiler's choices)
kib = {n: [temp_kib(n, body) for body in BODIES] for n in LENGTHS}
for n, m in zip(LENGTHS, LENGTHS[1:]):
    grown = [(b - a) / (m - n) for a, b in zip(kib[n], kib[m])]
    row = ", ".join(f"{body} {k:.1f}" for body, k in zip(BODIES, grown))
    print(f"KiB per step from {n} to {m} steps: {row}")
