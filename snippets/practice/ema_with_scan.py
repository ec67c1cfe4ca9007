import jax
import jax.numpy as jnp
import matplotlib.pyplot as plt

from practice.jit_scan.ema_with_scan.solution import ema, ema_with_resets

print(
    "ema([1, 2, 3], 0.5):             ", ema(jnp.array([1.0, 2.0, 3.0]), 0.5)
)
print(
    "ema([1, 2, 3], 0.5, debias=True):",
    ema(jnp.array([1.0, 2.0, 3.0]), 0.5, debias=True),
)

xs = jnp.array([4.0, 2.0, 10.0, 6.0, 8.0])
resets = jnp.array([False, False, True, False, True])
print("ema_with_resets:", ema_with_resets(xs, resets, 0.5))


def ema_python_loop(xs, decay):
    """The same EMA with a Python for loop. xs: (T, ...) -> (T, ...)."""
    m, out = jnp.zeros(xs.shape[1:]), []
    for x in xs:
        m = decay * m + (1 - decay) * x
        out.append(m)
    return jnp.stack(out)


def program_lines(fn, length):
    """Lines of the jaxpr of fn on a (length, 3) input."""
    return len(
        str(
            jax.make_jaxpr(lambda xs: fn(xs, 0.9))(jnp.zeros((length, 3)))
        ).splitlines()
    )


for length in [10, 100]:
    print(
        f"T = {length:3d}: traced program of ema {program_lines(ema, length)} "
        "lines, "
        f"of the Python loop {program_lines(ema_python_loop, length)} lines"
    )

steps = jnp.arange(200)
losses = 2.0 * jnp.exp(-steps / 60) + 0.3 * jax.random.normal(
    jax.random.key(0), (200,)
)
plt.figure(figsize=(6, 3.5))
plt.plot(steps, losses, alpha=0.4, label="raw loss")
plt.plot(steps, ema(losses, 0.9), label="EMA, decay 0.9")
plt.plot(steps, ema(losses, 0.9, debias=True), label="EMA, debiased")
plt.xlabel("step")
plt.ylabel("loss")
plt.title("Smoothing a noisy loss curve")
plt.legend()
plt.tight_layout()
plt.show()
