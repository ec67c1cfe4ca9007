"""Dropout in a jitted step: its key is fold_in(root, step); held-out loss."""

import jax
import jax.numpy as jnp
import optax

from _model import init_params, loss_fn, make_data

RATE, STEPS = 0.1, 300  # fraction of hidden units dropped while training
tx = optax.adam(learning_rate=0.01)
traces = 0  # Python runs only while jit traces


def dropout_loss(params, x, y, key):
    """MSE with each hidden unit dropped with probability RATE and the
    others scaled by 1 / (1 - RATE). x, y: (n, 1) -> ()."""
    hidden = jnp.tanh(x @ params[0]["w"] + params[0]["b"])
    keep = jax.random.bernoulli(key, 1 - RATE, hidden.shape)
    hidden = jnp.where(keep, hidden / (1 - RATE), 0.0)
    return jnp.mean((hidden @ params[1]["w"] + params[1]["b"] - y) ** 2)


@jax.jit
def train_step(params, opt_state, x, y, root, step):
    """One step, its mask drawn from fold_in(root, step).

    -> (params, opt_state, loss before the step).
    """
    global traces
    traces += 1
    key = jax.random.fold_in(root, step)
    loss, grads = jax.value_and_grad(dropout_loss)(params, x, y, key)
    updates, opt_state = tx.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state, loss


key_data, key_params, key_new, root = jax.random.split(jax.random.key(0), 4)
x, y = make_data(key_data)  # 256 training examples
x_new, y_new = make_data(key_new)  # 256 held out, never trained on
params = init_params(key_params)
opt_state = tx.init(params)

again = [train_step(params, opt_state, x, y, root, 7)[2] for _ in range(2)]
other = train_step(params, opt_state, x, y, root, 8)[2]
print("step 7 twice, same loss:", bool(again[0] == again[1]))
print("step 8, another loss:", bool(again[0] != other))

for step in range(STEPS):
    params, opt_state, loss = train_step(params, opt_state, x, y, root, step)
print("traced:", traces, "time(s) for", STEPS + 3, "calls")
# evaluation: the plain model (no dropout), on seen and on new examples
seen, new = loss_fn(params, x, y), loss_fn(params, x_new, y_new)
print(f"loss without dropout: training {seen:.4f}, held out {new:.4f}")
print("held out higher than training:", bool(new > seen))
