import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("model",))
k1, k2, kx = jax.random.split(jax.random.key(0), 3)
w1 = jax.random.normal(k1, (16, 64)) / 4.0  # (d, 4d): split by columns
w2 = jax.random.normal(k2, (64, 16)) / 8.0  # (4d, d): split by rows
x = jax.random.normal(kx, (4, 16))


def mlp_block(x, w1_cols, w2_rows):
    """Per-device MLP block.

    x: (batch, d), w1_cols: (d, 4d / 8), w2_rows: (4d / 8, d) -> (batch, d).
    """
    h = jnp.tanh(x @ w1_cols)  # this device's 8 hidden units, no communication
    return lax.psum(h @ w2_rows, "model")  # the only collective in the block


def put(a, spec):
    """Place array a on the mesh with PartitionSpec spec."""
    return jax.device_put(a, NamedSharding(mesh, spec))


block = jax.jit(
    jax.shard_map(
        mlp_block,
        mesh=mesh,
        in_specs=(P(), P(None, "model"), P("model", None)),
        out_specs=P(),
    )
)
y = block(put(x, P()), put(w1, P(None, "model")), put(w2, P("model", None)))
print(
    "matches tanh(x @ w1) @ w2:",
    bool(jnp.allclose(y, jnp.tanh(x @ w1) @ w2, atol=1e-5)),
)
