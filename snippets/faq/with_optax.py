import jax
import jax.numpy as jnp
import optax


def init_mlp(key, sizes):
    """Weights and biases for an MLP with layer sizes like [1, 32, 1], as a list of dicts."""
    keys = jax.random.split(key, len(sizes) - 1)
    return [{"w": jax.random.normal(k, (m, n)) / jnp.sqrt(m), "b": jnp.zeros(n)}
            for k, m, n in zip(keys, sizes[:-1], sizes[1:])]


def mlp(params, x):
    """tanh MLP. x: (n, sizes[0]) -> (n, sizes[-1])."""
    for layer in params[:-1]:
        x = jnp.tanh(x @ layer["w"] + layer["b"])
    return x @ params[-1]["w"] + params[-1]["b"]


def loss_fn(params, x, y):
    """Mean squared error. x: (n, 1), y: (n, 1) -> scalar."""
    return jnp.mean((mlp(params, x) - y) ** 2)


optimizer = optax.sgd(learning_rate=0.05, momentum=0.9)  # replaces momentum_init/update


@jax.jit
def train_step(params, opt_state, x, y):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    updates, opt_state = optimizer.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state, loss


x = jnp.linspace(-3.0, 3.0, 128)[:, None]
y = jnp.sin(x)
params = init_mlp(jax.random.key(0), [1, 32, 1])
opt_state = optimizer.init(params)
for step in range(501):
    params, opt_state, loss = train_step(params, opt_state, x, y)
    if step % 100 == 0:
        print(f"step {step:3d}  loss {loss:.4f}")
