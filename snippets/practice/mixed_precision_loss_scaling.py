# platform: gpu differs -- An H200 overflowed on fewer steps: its scale moves between 512 and 1024, where the CPU's falls to 64
# platform: tpu differs -- A TPU does float16 elementwise arithmetic in float32, and here the scaled float16 gradient was never rounded to float16 before being unscaled: no step overflows, and the scale doubles every 2 steps, from 1024 to 16384

import jax
import jax.numpy as jnp
import numpy as np

from practice.performance.mixed_precision_loss_scaling.solution import (
    LossScaleState,
    scaled_grads,
    train_step,
)

print(
    "float16 smallest subnormal:",
    float(jnp.finfo(jnp.float16).smallest_subnormal),
    " largest:",
    float(jnp.finfo(jnp.float16).max),
)
print("1.5e-8 in float16:", jnp.float16(1.5e-8))


def tiny_loss(params, batch):
    """A loss whose gradient entries are about 1.5e-8. x: (8, 4), w: (4,) ->
    scalar."""
    return 1e-5 * jnp.mean(batch["x"] @ params["w"])


rng = np.random.default_rng(0)
params = {"w": jnp.asarray(rng.normal(size=4), jnp.float32)}
batch = {"x": jnp.asarray(rng.uniform(1, 2, size=(8, 4)) * 1e-3, jnp.float32)}
print("float32 gradient:        ", jax.grad(tiny_loss)(params, batch)["w"])
for scale in [1.0, 2.0**15]:
    grads, finite = scaled_grads(tiny_loss, params, batch, scale)
    print(
        f"float16, scale {scale:7.0f}:", grads["w"], " finite:", bool(finite)
    )

# dynamic scaling on a loss whose gradient entries are about 600: scale 128
# overflows float16
big = {"x": jnp.asarray(rng.uniform(50, 100, size=(8, 4)), jnp.float32)}


def linear(params, batch):
    """Sum of x @ w; its gradient is the column sums of x. -> scalar."""
    return jnp.sum(batch["x"] @ params["w"])


step = jax.jit(
    train_step, static_argnums=(0, 4), static_argnames="growth_interval"
)
state = LossScaleState(jnp.float32(1024.0), jnp.int32(0))
for i in range(8):
    params, state = step(linear, params, state, big, 1e-5, growth_interval=2)
    print(
        f"step {i}: scale {float(state.scale):6.0f}  good steps "
        f"{int(state.good_steps)}"
    )
