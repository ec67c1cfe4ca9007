import jax
import jax.numpy as jnp

kx, ky = jax.random.split(jax.random.key(0))
x = jax.random.normal(kx, (1024, 16))  # 64 KiB of training data
y = jax.random.normal(ky, (1024,))
w = jnp.zeros(16)


def mse(w, x, y):
    """Least squares. w: (16,), x: (n, 16), y: (n,) -> ()."""
    return jnp.mean((x @ w - y) ** 2)


@jax.jit
def grad_step(w, x, y):
    """Gradient in w. The lambda closes over x and y, traced arguments."""
    return jax.grad(lambda w: mse(w, x, y))(w)


# the lambda closes over the global x and y: concrete arrays
grad_global = jax.jit(jax.grad(lambda w: mse(w, x, y)))

fine = len(grad_step.lower(w, x, y).as_text()) / 2**10
baked = len(grad_global.lower(w).as_text()) / 2**10
print(f"closure over traced arguments: program text {fine:6.1f} KiB")
print(f"closure over global data:      program text {baked:6.1f} KiB")
print("same gradient:", jnp.allclose(grad_step(w, x, y), grad_global(w)))
