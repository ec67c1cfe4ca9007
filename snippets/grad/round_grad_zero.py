import jax
import jax.numpy as jnp


def quantized_loss(w, x):
    """Loss with weights rounded to integers. w, x: (d,) -> scalar."""
    return jnp.sum(jnp.round(w) * x)


w = jnp.array([0.3, 1.7, -2.2])
x = jnp.array([1.0, 2.0, 3.0])
print("grad through jnp.round:", jax.grad(quantized_loss)(w, x))
