import jax
import jax.numpy as jnp


@jax.custom_vjp
def clip_gradient(x):
    """Identity forward; the gradient is clipped to [-1, 1] backward."""
    return x


def clip_forward(x):
    return x, None  # nothing to save for the backward pass


def clip_backward(_, g):
    return (jnp.clip(g, -1.0, 1.0),)


clip_gradient.defvjp(clip_forward, clip_backward)


def f(x):
    """10 * x**2 through clip_gradient. x: () -> ()."""
    return 10.0 * clip_gradient(x) ** 2


x = 0.5
print("value:", f(x))
print("gradient without clipping:", jax.grad(lambda v: 10.0 * v**2)(x))
print("gradient with clipping:   ", jax.grad(f)(x))
