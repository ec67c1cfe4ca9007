import jax
import jax.numpy as jnp
import optax

from snippets.training._model import init_params, loss_fn

# replaces momentum_init/update
optimizer = optax.sgd(learning_rate=0.05, momentum=0.9)


@jax.jit
def train_step(params, opt_state, x, y):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    updates, opt_state = optimizer.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state, loss


x = jnp.linspace(-3.0, 3.0, 128)[:, None]
y = jnp.sin(x)
params = init_params(jax.random.key(0), (1, 32, 1))
opt_state = optimizer.init(params)
for step in range(501):
    params, opt_state, loss = train_step(params, opt_state, x, y)
    if step % 100 == 0:
        print(f"step {step:3d}  loss {loss:.4f}")
