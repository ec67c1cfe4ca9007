import jax
import jax.numpy as jnp


def predict(w, b, x):
    """A linear layer with tanh. w: (d, k), b: (k,), x: (d,) -> (k,)."""
    return jnp.tanh(x @ w + b)


w, b, x = jnp.ones((3, 2)), jnp.zeros(2), jnp.ones(3)
print(jax.make_jaxpr(predict)(w, b, x))
