"""Three Optax parts: a schedule, gradient clipping, masked weight decay."""

import jax
import jax.numpy as jnp
import optax

from snippets.training._model import (
    decay_mask,
    init_params,
    loss_fn,
    make_data,
)

key_data, key_params = jax.random.split(jax.random.key(0))
x, y = make_data(key_data)
params = init_params(key_params)

# 1. A schedule is a function: step -> learning rate.
schedule = optax.warmup_cosine_decay_schedule(
    init_value=0.0, peak_value=0.01, warmup_steps=30, decay_steps=300
)
for step in (0, 15, 30, 165, 300):
    print(f"learning rate at step {step:3d}: {schedule(step):.4f}")

# 2. Clipping rescales the whole gradient tree to a global norm of at most 1.
grads = jax.grad(loss_fn)(params, x, y)
clip = optax.clip_by_global_norm(1.0)
clipped, _ = clip.update(grads, clip.init(params))
print(
    f"global norm: {optax.tree.norm(grads):.2f} -> "
    f"{optax.tree.norm(clipped):.2f} after clipping"
)

# 3. Weight decay with and without a mask, on a zero gradient: only the
# decay moves the parameters. Biases set to 1 so that decay can show.
ones = jax.tree.map(jnp.ones_like, params)
zero = jax.tree.map(jnp.zeros_like, params)
print("decay mask:", decay_mask(params))
for name, mask in {"no mask": None, "decay_mask": decay_mask}.items():
    tx = optax.adamw(learning_rate=0.1, weight_decay=0.5, mask=mask)
    updates, _ = tx.update(zero, tx.init(ones), ones)
    moved = jax.tree.map(lambda u: bool(jnp.any(u != 0)), updates)
    print(f"{name:10} moves: {moved}")
