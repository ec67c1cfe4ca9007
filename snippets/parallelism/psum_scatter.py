import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((4,), ("i",), devices=jax.devices()[:4])
# Row k is device k's contribution: 4 partial results of length 8.
parts = jnp.arange(32.0).reshape(4, 8)
print("sum of the 4 rows:", parts.sum(axis=0))


def reduce_scatter(row):
    """Per device: row (1, 8) -> (1, 2), its quarter of the sum of rows."""
    return lax.psum_scatter(row[0], "i", tiled=True)[None]


def sum_then_slice(row):
    """The same from a full psum: (1, 8) -> (1, 2)."""
    total = lax.psum(row[0], "i")  # all 8 sums, on every device
    k = lax.axis_index("i")  # this device's position on "i": 0 to 3
    print("axis_index:", jax.typeof(k))  # printed while tracing
    return lax.dynamic_slice_in_dim(total, 2 * k, 2)[None]


def scatter_then_gather(row):
    """psum as two halves: (1, 8) -> (1, 8), the whole sum."""
    quarter = lax.psum_scatter(row[0], "i", tiled=True)
    return lax.all_gather(quarter, "i", tiled=True)[None]


x = jax.device_put(parts, NamedSharding(mesh, P("i")))


def run(fn):
    """fn on each device's row of x. -> the results, row k from device k."""
    return jax.jit(
        jax.shard_map(fn, mesh=mesh, in_specs=P("i"), out_specs=P("i"))
    )(x)


print("reduce_scatter:", run(reduce_scatter).tolist())
print("sum_then_slice:", run(sum_then_slice).tolist())
full = run(scatter_then_gather)
print(
    "scatter, then gather: the sum on every device:",
    bool(jnp.all(full == parts.sum(axis=0))),
)
