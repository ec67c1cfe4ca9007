import jax
import jax.numpy as jnp

calls = 0


def loss(w, x, y):
    """Mean squared error. w: (d,), x: (n, d), y: (n,) -> scalar."""
    global calls
    calls += 1  # counts how often the Python function runs
    return jnp.mean((x @ w - y) ** 2)


x = jnp.array([[1.0, 2.0], [3.0, 4.0]])
y = jnp.array([1.0, 0.0])
w = jnp.array([0.5, -0.5])

calls = 0
value, grads = loss(w, x, y), jax.grad(loss)(w, x, y)
print("loss then grad:  ", value, grads, "| forward passes:", calls)

calls = 0
value, grads = jax.value_and_grad(loss)(w, x, y)
print("value_and_grad:  ", value, grads, "| forward passes:", calls)
