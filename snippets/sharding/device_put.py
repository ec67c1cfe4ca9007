import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((4, 2), ("data", "model"))
x = jnp.arange(32).reshape(8, 4)

# Rows split over "data" (4 ways), columns over "model" (2 ways).
sharding = NamedSharding(mesh, P("data", "model"))
xs = jax.device_put(x, sharding)

print("type:", jax.typeof(xs))
print("same values:", bool(jnp.array_equal(xs, x)))
for shard in xs.addressable_shards[:3]:
    rows, cols = shard.index
    print(
        f"{shard.device}: rows {rows.start}:{rows.stop}, cols "
        f"{cols.start}:{cols.stop}",
        shard.data.tolist(),
    )
