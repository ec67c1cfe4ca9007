"""optax.MultiSteps: average 8 micro-batch gradients, then apply one update."""

import jax
import jax.numpy as jnp
import optax

from snippets.training._model import init_params, loss_fn, make_data

key_data, key_params = jax.random.split(jax.random.key(0))
x, y = make_data(key_data)  # 256 examples
params = init_params(key_params)
sgd = optax.sgd(learning_rate=0.1)  # a step proportional to the gradient
multi = optax.MultiSteps(sgd, every_k_schedule=8)


@jax.jit
def micro_step(params, state, x, y):
    """One micro-batch of (32, 1) -> (params, state); moves every 8th call."""
    grads = jax.grad(loss_fn)(params, x, y)
    updates, state = multi.update(grads, state, params)
    return optax.apply_updates(params, updates), state


def max_diff(a, b):
    """Largest |a - b| over two pytrees of the same structure -> float."""
    diffs = jax.tree.map(lambda u, v: jnp.max(jnp.abs(u - v)), a, b)
    return float(max(jax.tree.leaves(diffs)))


def allclose(a, b):
    """True if every leaf of pytree a is close to the same leaf of b."""
    return jax.tree.all(jax.tree.map(jnp.allclose, a, b))


def sgd_step(x, y):
    """One SGD step from params on the examples x, y -> params."""
    updates, _ = sgd.update(jax.grad(loss_fn)(params, x, y), sgd.init(params))
    return optax.apply_updates(params, updates)


big_batch = sgd_step(x, y)  # all 256 examples
first_only = sgd_step(x[:32], y[:32])  # micro-batch 0 alone

p, state = params, multi.init(params)
for k, (xb, yb) in enumerate(zip(x.reshape(8, 32, 1), y.reshape(8, 32, 1))):
    p, state = micro_step(p, state, xb, yb)
    print(f"micro-batch {k}: params moved {max_diff(p, params):.2e}")
print("allclose to one step on all 256 examples:", allclose(p, big_batch))
print("allclose to one step on micro-batch 0:", allclose(p, first_only))
