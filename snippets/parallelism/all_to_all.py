import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((4,), ("i",), devices=jax.devices()[:4])
a = jnp.arange(16.0).reshape(4, 4)
rows = jax.device_put(a, NamedSharding(mesh, P("i", None)))


def rows_to_columns(block):
    """Per device: its row (1, 4) -> its column (4, 1)."""
    # cut the block into 4 pieces along axis 1, send piece j to device j,
    # and stack the 4 pieces received along axis 0
    return lax.all_to_all(block, "i", split_axis=1, concat_axis=0, tiled=True)


cols = jax.jit(
    jax.shard_map(
        rows_to_columns,
        mesh=mesh,
        in_specs=P("i", None),
        out_specs=P(None, "i"),
    )
)(rows)
print(
    "before:",
    jax.typeof(rows),
    "| device 1 holds",
    rows.addressable_shards[1].data.tolist(),
)
print(
    "after: ",
    jax.typeof(cols),
    "| device 1 holds",
    cols.addressable_shards[1].data.tolist(),
)
print("same array:", bool(jnp.array_equal(cols, a)))
