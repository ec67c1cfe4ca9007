"""A two-layer MLP for a ("data", "model") mesh, shared by the cells of
Step 9, part 2, and of the parallelism reference."""

import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

D, H = 16, 64  # input and output width, hidden width

SPECS = {
    "w1": P(None, "model"),
    "b1": P("model"),
    "w2": P("model", None),
    "b2": P(),
}


def init(key):
    """Parameters from a key: w1 (D, H), b1 (H,), w2 (H, D), b2 (D,)."""
    k1, k2 = jax.random.split(key)
    return {
        "w1": jax.random.normal(k1, (D, H)) / jnp.sqrt(D),
        "b1": jnp.zeros(H),
        "w2": jax.random.normal(k2, (H, D)) / jnp.sqrt(H),
        "b2": jnp.zeros(D),
    }


def init_in_place(key):
    """init, each device drawing only its own blocks; the result is laid
    out by SPECS. Call it under jax.set_mesh, inside jax.jit."""
    return jax.sharding.auto_axes(init, out_sharding=SPECS)(key)


def predict(params, x):
    """x: (n, D) -> (n, D), laid out like x."""
    h = jnp.tanh(x @ params["w1"] + params["b1"])
    # h's columns and w2's rows are split over "model": each device holds
    # a partial product, and the layout of their sum must be stated.
    y = jnp.matmul(h, params["w2"], out_sharding=jax.typeof(x).sharding)
    return y + params["b2"]


def loss(params, x, y):
    """Mean squared error. x, y: (n, D) -> ()."""
    return jnp.mean((predict(params, x) - y) ** 2)


def batch(key, n):
    """n examples of a fixed target function. -> x, y: (n, D)."""
    x = jax.random.normal(key, (n, D))
    return x, jnp.sin(2 * x)
