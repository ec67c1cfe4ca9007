"""Step 7's training loop, unchanged, on a batch split over 8 devices."""

from functools import partial

import jax
import jax.numpy as jnp
import optax
from jax.sharding import NamedSharding, PartitionSpec as P

from snippets.training._model import init_params, loss_fn, make_data

from _hlo import result_types, without_layouts

mesh = jax.make_mesh((8,), ("data",))  # Explicit axes: the default
optimizer = optax.sgd(0.05, momentum=0.9)


@jax.jit
def train_step(params, opt_state, x, y):
    """Step 7's step -> (params, opt_state, loss before the step)."""
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    updates, opt_state = optimizer.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state, loss


def train(params, x, y, steps=100):
    """Full-batch steps -> (params, losses: (steps,))."""
    opt_state, losses = optimizer.init(params), []
    for _ in range(steps):
        params, opt_state, loss = train_step(params, opt_state, x, y)
        losses.append(loss)
    return params, jnp.stack(losses)


key_data, key_params = jax.random.split(jax.random.key(0))
x, y = make_data(key_data)  # 256 examples
params = init_params(key_params)

# the batch split 8 ways, the parameters copied onto every device
xs, ys = jax.device_put((x, y), NamedSharding(mesh, P("data")))
placed = jax.device_put(params, NamedSharding(mesh, P()))
with jax.set_mesh(mesh):
    dp_params, dp_losses = train(placed, xs, ys)
    program = train_step.lower(placed, optimizer.init(placed), xs, ys)
    program = program.compile().as_text()
one_params, one_losses = train(params, x, y)  # all on one device

print(
    "batch x:",
    jax.typeof(xs),
    "| w1 after training:",
    jax.typeof(dp_params[0]["w"]),
    "on",
    len(dp_params[0]["w"].sharding.device_set),
    "devices",
)
print("each device holds", xs.addressable_shards[0].data.shape[0], "examples")
print(f"loss at step 0: {dp_losses[0]:.4f}, step 50: {dp_losses[50]:.4f}")
reduces = [without_layouts(t) for t in result_types(program, "all-reduce")]
print("all-reduces in the compiled step:", reduces)


# equal to float32 rounding: sums taken in another order differ
close = partial(jnp.allclose, rtol=1e-5, atol=1e-6)
same = jax.tree.all(
    jax.tree.map(close, (dp_losses, dp_params), (one_losses, one_params))
)
print("same losses and parameters as on one device (rtol 1e-5):", same)
