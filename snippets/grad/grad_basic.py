import jax
import jax.numpy as jnp


def f(x):
    """Sum of squares. x: (n,) -> scalar."""
    return jnp.sum(x**2)


df = jax.grad(f)  # a new function with the same inputs as f
x = jnp.array([1.0, -2.0, 3.0])
print("f(x):      ", f(x))
print("grad f(x): ", df(x))
print("2 * x:     ", 2 * x)

# grad of grad: the second derivative of sin is -sin
d2sin = jax.grad(jax.grad(jnp.sin))
print("d2 sin(0.5):", d2sin(0.5), " -sin(0.5):", -jnp.sin(0.5))
