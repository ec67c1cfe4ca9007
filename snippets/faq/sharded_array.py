import jax
import jax.numpy as jnp
from jax.sharding import AxisType, NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((4, 2), ("rows", "cols"), axis_types=(AxisType.Auto, AxisType.Auto))
x = jnp.arange(32.0).reshape(8, 4)
xs = jax.device_put(x, NamedSharding(mesh, P("rows", "cols")))  # 8 blocks of 2 x 2

for shard in xs.addressable_shards:
    rows, cols = shard.index
    print(f"{shard.device}: rows {rows.start}:{rows.stop}, cols {cols.start}:{cols.stop}")

total = jax.jit(lambda a: (a**2).sum())(xs)  # the compiler combines the 8 partial sums
print("sum of squares, sharded:", total, " unsharded:", (x**2).sum())
