import jax
import jax.numpy as jnp
import matplotlib.pyplot as plt
import numpy as np
import optax

from practice.jit_scan.traced_lr_schedule.solution import (
    warmup_cosine_schedule,
)

cfg = dict(
    init_value=0.0,
    peak_value=1e-3,
    warmup_steps=10,
    decay_steps=100,
    end_value=1e-4,
)
schedule = jax.jit(warmup_cosine_schedule(**cfg))
oracle = optax.warmup_cosine_decay_schedule(**cfg)

for step in [0, 5, 10, 55, 100, 150]:
    print(f"step {step:3d}: lr = {float(schedule(jnp.int32(step))):.6f}")

steps = jnp.arange(120)
print(
    "matches optax on steps 0..119:",
    np.allclose(schedule(steps), oracle(steps), rtol=1e-5),
)


def python_if_schedule(step):
    """The same warmup written with a Python if: fine eagerly, not under
    jit."""
    if step < 10:
        return 1e-4 * step
    return 1e-3


try:
    jax.jit(python_if_schedule)(jnp.int32(3))
except jax.errors.TracerBoolConversionError as err:
    print("Python if under jit:", type(err).__name__)

plt.figure(figsize=(6, 3.5))
plt.plot(steps, schedule(steps))
plt.xlabel("step")
plt.ylabel("learning rate")
plt.title("Linear warmup (10 steps), cosine decay to step 100")
plt.tight_layout()
plt.show()
