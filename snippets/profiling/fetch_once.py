import jax
import jax.numpy as jnp
import numpy as np

from _mlp import init_mlp, mlp


def loss_fn(params, x, y):
    """Mean squared error of the MLP. x: (n, 256), y: (n, 1) -> ()."""
    return jnp.mean((mlp(params, x) - y) ** 2)


@jax.jit
def step(params, x, y):
    """One SGD step; the data are arguments -> (params, loss)."""
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    return jax.tree.map(lambda p, g: p - 0.1 * g, params, grads), loss


kp, kx = jax.random.split(jax.random.key(0))
params = init_mlp(kp, [256, 512, 512, 1])
x = jax.random.normal(kx, (256, 256))
y = jnp.sin(x[:, :1])
step(params, x, y)  # compile outside the loop

losses = []
for _ in range(20):
    params, loss = step(params, x, y)
    losses.append(loss)  # a device scalar: nothing waits
print("Python queued all 20 steps before the last one was computed:")
print("  last loss not ready yet:", not losses[-1].is_ready())

history = np.asarray(jnp.stack(losses))  # the one wait, the one transfer
print("fetched once:", history.shape, history.dtype)
print("loss fell over the 20 steps:", bool(history[-1] < history[0]))
