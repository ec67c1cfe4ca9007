"""A practitioner's AdamW: clip, schedule, masked decay, inspectable lr."""

import jax
import jax.numpy as jnp
import numpy as np
import optax

from snippets.training._model import (
    decay_mask,
    init_params,
    loss_fn,
    make_data,
)

STEPS = 300
schedule = optax.warmup_cosine_decay_schedule(
    init_value=0.0, peak_value=0.01, warmup_steps=30, decay_steps=STEPS
)
tx = optax.chain(
    optax.clip_by_global_norm(1.0),
    # inject_hyperparams keeps learning_rate and weight_decay in the state;
    # mask is a function but not a schedule, so it is declared static
    optax.inject_hyperparams(optax.adamw, static_args="mask")(
        learning_rate=schedule, weight_decay=1e-4, mask=decay_mask
    ),
)


@jax.jit
def train_step(params, opt_state, x, y):
    """-> (params, opt_state, loss before the step, learning rate used)."""
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    updates, opt_state = tx.update(grads, opt_state, params)
    lr = opt_state[1].hyperparams["learning_rate"]  # chain: 0 clip, 1 adamw
    return optax.apply_updates(params, updates), opt_state, loss, lr


key_data, key_params = jax.random.split(jax.random.key(0))
x, y = make_data(key_data)
params = init_params(key_params)
opt_state = tx.init(params)
print("hyperparameters in the state:", sorted(opt_state[1].hyperparams))

log = []
for _ in range(STEPS):
    params, opt_state, loss, lr = train_step(params, opt_state, x, y)
    log.append((loss, lr))  # device values: fetched once, below
losses, lrs = (np.asarray(jnp.stack(v)) for v in zip(*log))
for step in (0, 30, 150, 299):
    print(f"step {step:3d}  lr {lrs[step]:.4f}  loss {losses[step]:.4f}")
print("rate 0: loss before step 1 == before step 0:", losses[1] == losses[0])
print(
    "lr used = schedule(step) at every step:",
    np.allclose(lrs, schedule(np.arange(STEPS))),
)
