import jax
import jax.numpy as jnp
from jax.sharding import AxisType, NamedSharding, PartitionSpec as P

mesh = jax.make_mesh(
    (4, 2), ("rows", "cols"), axis_types=(AxisType.Auto, AxisType.Auto)
)
x = jnp.arange(32.0).reshape(8, 4)
# 8 blocks of 2 x 2
xs = jax.device_put(x, NamedSharding(mesh, P("rows", "cols")))

for shard in xs.addressable_shards:
    rows, cols = shard.index
    print(
        f"{shard.device}: rows {rows.start}:{rows.stop}, cols "
        f"{cols.start}:{cols.stop}"
    )

# the compiler combines the 8 partial sums
total = jax.jit(lambda a: (a**2).sum())(xs)
print("sum of squares, sharded:", total, " unsharded:", (x**2).sum())
