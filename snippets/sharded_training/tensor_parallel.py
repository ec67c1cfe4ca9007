import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("model",))
kx, kw = jax.random.split(jax.random.key(0))
x = jax.random.normal(kx, (4, 32))  # (batch, d_in)
w = jax.random.normal(kw, (32, 16))  # (d_in, d_out)
expected = x @ w


def put(a, spec):
    """Place array a on the mesh with PartitionSpec spec."""
    return jax.device_put(a, NamedSharding(mesh, spec))


def column_parallel(x, w_cols):
    """No communication.

    x: (batch, d_in), w_cols: (d_in, d_out / 8) -> (batch, d_out / 8).
    """
    return x @ w_cols


def row_parallel(x_cols, w_rows):
    """One psum of partial products.

    x_cols: (batch, d_in / 8), w_rows: (d_in / 8, d_out) -> (batch, d_out).
    """
    partial = x_cols @ w_rows  # this device's share of the sum over d_in
    return lax.psum(partial, "model")  # add the 8 shares


y_col = jax.jit(
    jax.shard_map(
        column_parallel,
        mesh=mesh,
        in_specs=(P(), P(None, "model")),
        out_specs=P(None, "model"),
    )
)(put(x, P()), put(w, P(None, "model")))
y_row = jax.jit(
    jax.shard_map(
        row_parallel,
        mesh=mesh,
        in_specs=(P(None, "model"), P("model", None)),
        out_specs=P(),
    )
)(put(x, P(None, "model")), put(w, P("model", None)))

print(
    "column split:",
    jax.typeof(y_col),
    "matches x @ w:",
    bool(jnp.allclose(y_col, expected, atol=1e-4)),
)
print(
    "row split:   ",
    jax.typeof(y_row),
    "matches x @ w:",
    bool(jnp.allclose(y_row, expected, atol=1e-4)),
)
