import jax
import jax.numpy as jnp

from snippets.training._model import init_params, loss_fn


def momentum_init(params):
    """Optimizer state: one zero velocity per parameter."""
    return jax.tree.map(jnp.zeros_like, params)


def momentum_update(grads, velocity, params, lr=0.05, beta=0.9):
    """SGD with momentum. Returns (new params, new velocity)."""
    velocity = jax.tree.map(lambda v, g: beta * v + g, velocity, grads)
    params = jax.tree.map(lambda p, v: p - lr * v, params, velocity)
    return params, velocity


@jax.jit
def train_step(params, velocity, x, y):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    params, velocity = momentum_update(grads, velocity, params)
    return params, velocity, loss


x = jnp.linspace(-3.0, 3.0, 128)[:, None]
y = jnp.sin(x)
params = init_params(jax.random.key(0), (1, 32, 1))
velocity = momentum_init(params)
for step in range(501):
    params, velocity, loss = train_step(params, velocity, x, y)
    if step % 100 == 0:
        print(f"step {step:3d}  loss {loss:.4f}")
