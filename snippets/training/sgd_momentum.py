"""SGD with momentum by hand: an init/update pair, then a jitted step."""

import jax
import jax.numpy as jnp

from _model import init_params, loss_fn, make_data


def sgd_momentum(lr, momentum):
    """Return (init, update). v <- momentum * v + g; the update is -lr * v."""

    def init(params):
        """Velocity: zeros with the structure and shapes of params."""
        return jax.tree.map(jnp.zeros_like, params)

    def update(grads, velocity, params=None):
        """grads, velocity: pytrees like params -> (updates, new velocity)."""
        velocity = jax.tree.map(lambda v, g: momentum * v + g, velocity, grads)
        updates = jax.tree.map(lambda v: -lr * v, velocity)
        return updates, velocity

    return init, update


opt_init, opt_update = sgd_momentum(lr=0.05, momentum=0.9)


@jax.jit
def train_step(params, opt_state, x, y):
    """One step, loss and grads in one pass -> (params, opt_state, loss)."""
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    updates, opt_state = opt_update(grads, opt_state, params)
    params = jax.tree.map(lambda p, u: p + u, params, updates)
    return params, opt_state, loss


key_data, key_params = jax.random.split(jax.random.key(0))
x, y = make_data(key_data)
params = init_params(key_params)
opt_state = opt_init(params)

for step in range(300):
    # rebind: nothing is mutated
    params, opt_state, loss = train_step(params, opt_state, x, y)
    if step % 50 == 0 or step == 299:
        print(f"step {step:3d}  loss {loss:.4f}")
