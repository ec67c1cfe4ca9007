import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("i",))
v = jnp.arange(16.0)
x = jax.device_put(v, NamedSharding(mesh, P("i")))  # 2 values per device


def gather(block):
    """block: (2,) -> (1, 16): the full vector, as this device now holds it."""
    # tiled=True: one (16,) vector, not the 8 blocks stacked as (8, 2)
    full = lax.all_gather(block, "i", tiled=True)
    return full[None]


# out_specs=P("i") stacks the 8 per-device results: row k is device k's copy.
copies = jax.jit(
    jax.shard_map(gather, mesh=mesh, in_specs=P("i"), out_specs=P("i"))
)(x)
print("copies:", jax.typeof(copies))
for shard in copies.addressable_shards[:2]:
    print(f"{shard.device} holds:", shard.data[0])
print("every device holds the whole vector:", bool(jnp.all(copies == v)))
