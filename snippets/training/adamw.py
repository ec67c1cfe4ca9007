"""One model trained with optax.adamw and optax.sgd(momentum=0.9)."""

import jax
import jax.numpy as jnp
import matplotlib.pyplot as plt
import numpy as np
import optax

from _model import (
    decay_mask,
    init_params,
    loss_fn,
    make_data,
)


def train(optimizer, params, x, y, steps):
    """Full-batch training. -> losses: (steps,) NumPy array, one per step."""

    @jax.jit
    def step(params, opt_state, x, y):
        """One full-batch step -> (params, opt_state, loss before the step)."""
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        # adamw needs params
        updates, opt_state = optimizer.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, loss

    opt_state = optimizer.init(params)
    losses = []
    for _ in range(steps):
        params, opt_state, loss = step(params, opt_state, x, y)
        losses.append(loss)  # stays on the device: nothing waits
    return np.asarray(jnp.stack(losses))  # one transfer, after the loop


key_data, key_params = jax.random.split(jax.random.key(0))
x, y = make_data(key_data)
params = init_params(key_params)

runs = {
    "sgd, momentum 0.9 (lr 0.05)": optax.sgd(learning_rate=0.05, momentum=0.9),
    # decay the weight matrices only, not the biases
    "adamw (lr 0.01, wd 1e-4)": optax.adamw(
        learning_rate=0.01, weight_decay=1e-4, mask=decay_mask
    ),
}
curves = {}
for name, optimizer in runs.items():
    curves[name] = train(optimizer, params, x, y, steps=300)
    first, last = curves[name][0], curves[name][-1]
    print(f"{name:28} loss at step 1: {first:.3f}, step 300: {last:.4f}")

fig, ax = plt.subplots(figsize=(6, 3.5))
for name, losses in curves.items():
    ax.plot(losses, label=name)
ax.set_yscale("log")
ax.set_xlabel("step")
ax.set_ylabel("training loss (MSE)")
ax.set_title("Same model, same data, two optimizers")
ax.legend()
fig.tight_layout()
plt.show()
