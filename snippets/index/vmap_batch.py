import jax
import jax.numpy as jnp


def dot(a, b):
    """Dot product of two vectors. a, b: (d,) -> scalar."""
    return jnp.sum(a * b)


a = jnp.arange(12.0).reshape(4, 3)  # a batch of 4 vectors
b = jnp.ones(3)  # one vector shared by the whole batch
batched = jax.vmap(dot, in_axes=(0, None))  # map over rows of `a`, reuse `b`
print("per-row dots:", batched(a, b))
print("shape:", batched(a, b).shape)
