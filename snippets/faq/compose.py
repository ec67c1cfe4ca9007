import jax
import jax.numpy as jnp


def loss(w, x, y):
    """Squared error on ONE example. w: (d,), x: (d,), y: () -> ()."""
    return (x @ w - y) ** 2


x = jnp.arange(12.0).reshape(4, 3)  # 4 examples
y = jnp.array([1.0, 0.0, -1.0, 2.0])
w = jnp.array([0.1, -0.2, 0.3])

# gradient for one example -> mapped over the batch -> compiled
per_example_grads = jax.jit(jax.vmap(jax.grad(loss), in_axes=(None, 0, 0)))
grads = per_example_grads(w, x, y)
one_at_a_time = jnp.stack([jax.grad(loss)(w, x[i], y[i]) for i in range(4)])
print("per-example gradients, shape:", grads.shape)
print(
    "same as a Python loop over examples:", jnp.allclose(grads, one_at_a_time)
)
