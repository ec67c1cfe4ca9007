import jax
import jax.numpy as jnp


def loss(w, b, x, y):
    """Linear-model MSE. w: (d,), b: (), x: (n, d), y: (n,) -> scalar."""
    return jnp.mean((x @ w + b - y) ** 2)


x = jnp.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
y = jnp.array([1.0, 2.0, 3.0])
w, b = jnp.array([0.1, 0.2]), 0.5

dw = jax.grad(loss)(w, b, x, y)  # default argnums=0: w.r.t. w only
print("dL/dw:", dw)

# a tuple, one entry per argnum
dw, db = jax.grad(loss, argnums=(0, 1))(w, b, x, y)
print("dL/dw:", dw, " dL/db:", db)
