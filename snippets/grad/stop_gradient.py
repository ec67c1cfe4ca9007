import jax
import jax.numpy as jnp
from jax import lax


def square(x):
    """x * x. x: () -> ()."""
    return x * x


def square_half_stopped(x):
    """x * x, with the second factor treated as a constant."""
    return x * lax.stop_gradient(x)


def round_ste(w):
    """Round; the gradient passes straight through. w: any shape."""
    return w + lax.stop_gradient(jnp.round(w) - w)


def quantized_loss(w, x):
    """Loss with weights rounded to integers. w, x: (d,) -> scalar."""
    return jnp.sum(round_ste(w) * x)


print("grad of square at 3:             ", jax.grad(square)(3.0))
print("grad of square_half_stopped at 3:", jax.grad(square_half_stopped)(3.0))

w = jnp.array([0.3, 1.7, -2.2])
x = jnp.array([1.0, 2.0, 3.0])
print("forward rounds:    ", round_ste(w))
print("grad through STE:  ", jax.grad(quantized_loss)(w, x))
print("jvp along x:       ", jax.jvp(round_ste, (w,), (x,))[1])
