import jax
import jax.numpy as jnp


def score(w, x):
    """Dot product plus a squashing. w, x: (d,) -> scalar."""
    return jnp.tanh(jnp.dot(w, x))


w, x = jnp.ones(3), jnp.ones(3)
xs = jnp.ones((5, 3))
print("unbatched:")
print(jax.make_jaxpr(score)(w, x))
print("vmapped over x:")
print(jax.make_jaxpr(jax.vmap(score, in_axes=(None, 0)))(w, xs))
