# platform: tpu rtol=2e-5 -- A TPU multiplies float32 matrices in one bfloat16 pass by default and computes the logarithm inside `random.normal` with its own approximation, so the last digits move (up to 8e-6); both optimizers still agree exactly
"""The hand-written SGD-momentum pair next to optax.sgd, step for step."""

import jax
import jax.numpy as jnp
import optax

from _model import init_params, loss_fn, make_data


def sgd_momentum(lr, momentum):
    """The same (init, update) pair as in the previous cell."""

    def init(params):
        """Velocity: zeros shaped like params."""
        return jax.tree.map(jnp.zeros_like, params)

    def update(grads, velocity, params=None):
        """-> (updates, new velocity)."""
        velocity = jax.tree.map(lambda v, g: momentum * v + g, velocity, grads)
        return jax.tree.map(lambda v: -lr * v, velocity), velocity

    return init, update


def make_step(update):
    """A jitted training step for any (init, update) optimizer."""

    @jax.jit
    def step(params, opt_state, x, y):
        """One full-batch step -> (params, opt_state, loss before the step)."""
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        updates, opt_state = update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, loss

    return step


@jax.jit
def max_abs_diff(a, b):
    """Largest |a - b| over two pytrees of the same structure -> ()."""
    return jax.tree.reduce(
        jnp.maximum, jax.tree.map(lambda u, v: jnp.max(jnp.abs(u - v)), a, b)
    )


mine = sgd_momentum(lr=0.05, momentum=0.9)
tx = optax.sgd(learning_rate=0.05, momentum=0.9)
print("optax.sgd is a", type(tx).__name__, "with fields", tx._fields)

key_data, key_params = jax.random.split(jax.random.key(0))
x, y = make_data(key_data)
params_a = params_b = init_params(key_params)
state_a, state_b = mine[0](params_a), tx.init(params_b)
step_a, step_b = make_step(mine[1]), make_step(tx.update)

diffs = []
for step in range(300):
    params_a, state_a, loss_a = step_a(params_a, state_a, x, y)
    params_b, state_b, loss_b = step_b(params_b, state_b, x, y)
    diffs.append(max_abs_diff(params_a, params_b))
    if step < 3:
        print(
            f"step {step}: loss {loss_a:.6f} vs {loss_b:.6f}, max |params "
            f"diff| {diffs[-1]:.1e}"
        )
# one device-side max, fetched once
largest = jnp.max(jnp.stack(diffs))
print(f"largest params difference over 300 steps: {largest:.1e}")
print(
    "final params allclose:",
    all(jax.tree.leaves(jax.tree.map(jnp.allclose, params_a, params_b))),
)
