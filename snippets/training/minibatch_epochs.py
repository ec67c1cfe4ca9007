"""Mini-batches in a fresh random order every epoch; a donated train state."""

from functools import partial

import jax
import optax

from _model import (
    decay_mask,
    init_params,
    loss_fn,
    make_data,
)

BATCH, EPOCHS = 32, 20
tx = optax.adamw(learning_rate=0.01, weight_decay=1e-4, mask=decay_mask)


def batches(order, x, y):
    """order: (n,), x, y: (n, 1) -> x, y: (n // BATCH, BATCH, 1) in order."""
    return x[order].reshape(-1, BATCH, 1), y[order].reshape(-1, BATCH, 1)


@partial(jax.jit, donate_argnums=(0, 1))  # reuse the old state's buffers
def train_step(params, opt_state, x, y):
    """One step on a (BATCH, 1) batch -> (params, opt_state, loss)."""
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    updates, opt_state = tx.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state, loss


key_data, key_params, key_shuffle = jax.random.split(jax.random.key(0), 3)
x, y = make_data(key_data)  # 256 examples: 8 batches per epoch
params = init_params(key_params)
opt_state = tx.init(params)

for epoch in range(EPOCHS):
    key_shuffle, key_epoch = jax.random.split(key_shuffle)  # new key each time
    order = jax.random.permutation(key_epoch, x.shape[0])
    if epoch < 2:
        print(f"epoch {epoch}: first examples {order[:6].tolist()}")
    xs, ys = batches(order, x, y)
    for xb, yb in zip(xs, ys):
        old_w = params[0]["w"]  # the weights this step is passed (and donates)
        params, opt_state, loss = train_step(params, opt_state, xb, yb)
    if epoch % 5 == 4:
        print(
            f"epoch {epoch:2d}: last batch loss {loss:.4f}, "
            f"full-data loss {loss_fn(params, x, y):.4f}"
        )
print("old params deleted by donation:", old_w.is_deleted())
