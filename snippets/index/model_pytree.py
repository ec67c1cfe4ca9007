import jax
import jax.numpy as jnp


def init(key, d_in, d_out):
    """Linear-model parameters. -> {"w": (d_in, d_out), "b": (d_out,)}."""
    return {
        "w": 0.1 * jax.random.normal(key, (d_in, d_out)),
        "b": jnp.zeros(d_out),
    }


def model(params, x):
    """A pure function of parameters and input. x: (n, d_in) -> (n, d_out)."""
    return x @ params["w"] + params["b"]


def loss(params, x, y):
    """Mean squared error. x: (n, d_in), y: (n, d_out) -> scalar."""
    return jnp.mean((model(params, x) - y) ** 2)


params = init(jax.random.key(0), 3, 2)
x, y = jnp.ones((5, 3)), jnp.zeros((5, 2))
grads = jax.grad(loss)(params, x, y)  # same structure as params
print("param shapes:", jax.tree.map(jnp.shape, params))
print("grad shapes: ", jax.tree.map(jnp.shape, grads))
