import jax
import numpy as np
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",))
rows = NamedSharding(mesh, P("data"))
local = np.arange(64 * 16, dtype=np.float32).reshape(64, 16)

# With one process, this process's data is the whole batch.
x = jax.make_array_from_process_local_data(rows, local)
print("processes:", jax.process_count(), "| local data:", local.shape)
print("global array:", x.shape, jax.typeof(x), "|", x.sharding.spec)
print(
    "shards on this process's devices:",
    len(x.addressable_shards),
    "of",
    len(x.global_shards),
    "| device 0 holds",
    x.addressable_shards[0].data.shape,
)
print("same as device_put:", np.array_equal(x, jax.device_put(local, rows)))
