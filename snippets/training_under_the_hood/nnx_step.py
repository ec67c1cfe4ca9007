"""Step 7's training step in Flax NNX, checked against the plain-JAX step."""

import jax
import jax.numpy as jnp
import optax
from flax import nnx

from snippets.training._model import loss_fn, make_data
from snippets.training_under_the_hood._nnx_model import MLP, as_layers, mse

model = MLP(nnx.Rngs(0))  # parameters drawn by nnx.Linear's initialisers
optimizer = nnx.Optimizer(model, optax.sgd(0.05, momentum=0.9), wrt=nnx.Param)


@nnx.jit
def nnx_step(model, optimizer, x, y):
    """Updates model and optimizer in place; returns the loss before it."""
    loss, grads = nnx.value_and_grad(mse)(model, x, y)
    optimizer.update(model, grads)  # new parameters written into model
    return loss


# the plain-JAX step of this page, started from the same parameters
tx = optax.sgd(0.05, momentum=0.9)
params = as_layers(nnx.state(model, nnx.Param))
opt_state = tx.init(params)


@jax.jit
def plain_step(params, opt_state, x, y):
    """-> (params, opt_state, loss before the step), as Step 7 writes it."""
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    updates, opt_state = tx.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state, loss


x, y = make_data(jax.random.split(jax.random.key(0))[0])
print(
    "hidden kernel:",
    type(model.hidden.kernel).__name__,
    model.hidden.kernel.shape,
)
for step in range(300):
    loss_nnx = nnx_step(model, optimizer, x, y)  # nothing rebound: mutated
    params, opt_state, loss_plain = plain_step(params, opt_state, x, y)
    if step % 100 == 0 or step == 299:
        print(
            f"step {step:3d}  loss: NNX {loss_nnx:.4f},"
            f" plain JAX {loss_plain:.4f}"
        )

print("optimizer steps counted:", int(optimizer.step[...]))
trained = as_layers(nnx.state(model, nnx.Param))
same = jax.tree.all(jax.tree.map(jnp.allclose, trained, params))
print("same parameters after 300 steps:", same)
