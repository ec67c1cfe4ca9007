import jax
import jax.numpy as jnp


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
params = init_mlp(jax.random.key(0), [1, 32, 1])
velocity = momentum_init(params)
for step in range(501):
    params, velocity, loss = train_step(params, velocity, x, y)
    if step % 100 == 0:
        print(f"step {step:3d}  loss {loss:.4f}")
