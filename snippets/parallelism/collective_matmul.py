import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import PartitionSpec as P

from snippets.sharding._hlo import collectives

N = 8  # devices on the "model" axis
mesh = jax.make_mesh((N,), ("model",))
k = jax.random.split(jax.random.key(0), 2)
x = jax.random.normal(k[0], (64, 16))  # rows split: sequence parallel
w = jax.random.normal(k[1], (16, 64)) / 4.0  # columns split


def gather_then_multiply(x_rows, w_cols):
    """Per device: x_rows (64 / 8, 16), w_cols (16, 64 / 8) -> (64, 8).
    The product waits for the whole all_gather."""
    return lax.all_gather(x_rows, "model", axis=0, tiled=True) @ w_cols


def collective_matmul(x_rows, w_cols):
    """The same result, one block of rows at a time: multiply the block
    held now while the next one travels around the ring."""
    me, n = lax.axis_index("model"), x_rows.shape[0]
    out = jnp.zeros((N * n, w_cols.shape[1]))
    ring = [(j, (j - 1) % N) for j in range(N)]  # send to the previous
    for step in range(N):
        # x_rows holds the rows of device (me + step) % N
        owner = (me + step) % N
        out = lax.dynamic_update_slice_in_dim(
            out, x_rows @ w_cols, owner * n, 0
        )
        if step < N - 1:
            x_rows = lax.ppermute(x_rows, "model", ring)
    return out


specs = dict(
    in_specs=(P("model"), P(None, "model")), out_specs=P(None, "model")
)
with jax.set_mesh(mesh):
    args = jax.device_put((x, w), specs["in_specs"])
for f in (gather_then_multiply, collective_matmul):
    matmul = jax.jit(jax.shard_map(f, mesh=mesh, **specs))
    y = matmul(*args)
    program = matmul.lower(*args).compile().as_text()
    print(
        f"{f.__name__:20}: {jax.typeof(y)}",
        f"| {collectives(program)}",
        f"| equals x @ w: {bool(jnp.allclose(y, x @ w, atol=1e-5))}",
    )
