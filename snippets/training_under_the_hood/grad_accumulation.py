"""Gradient accumulation with lax.scan, compared with the full batch."""

import jax
import jax.numpy as jnp
from jax import lax

from snippets.training._model import init_params, loss_fn, make_data


@jax.jit
def accumulated_grad(params, x, y):
    """m micro-batches of b examples.

    x, y: (m, b, 1) -> (mean loss, mean grads).
    """

    def body(carry, batch):
        """Add one micro-batch's loss and gradients to the running sums."""
        loss_sum, grad_sum = carry
        loss, grads = jax.value_and_grad(loss_fn)(params, *batch)
        return (loss_sum + loss, jax.tree.map(jnp.add, grad_sum, grads)), None

    zeros = (jnp.float32(0.0), jax.tree.map(jnp.zeros_like, params))
    (loss_sum, grad_sum), _ = lax.scan(body, zeros, (x, y))
    m = x.shape[0]
    return loss_sum / m, jax.tree.map(lambda g: g / m, grad_sum)


key_data, key_params = jax.random.split(jax.random.key(0))
x, y = make_data(key_data)  # 256 examples
params = init_params(key_params)

# 8 micro-batches of 32
micro_x, micro_y = (x.reshape(8, 32, 1), y.reshape(8, 32, 1))
loss_acc, grads_acc = accumulated_grad(params, micro_x, micro_y)
loss_full, grads_full = jax.value_and_grad(loss_fn)(params, x, y)

print(
    "micro-batches:",
    micro_x.shape,
    "| grads structure:",
    jax.tree.structure(grads_acc),
)
print(f"loss: accumulated {loss_acc:.4f}, full batch {loss_full:.4f}")
print(
    "grads allclose:",
    jax.tree.all(jax.tree.map(jnp.allclose, grads_acc, grads_full)),
)
