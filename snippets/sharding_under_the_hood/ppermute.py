import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("i",))
# one value per device
x = jax.device_put(jnp.arange(8.0) * 10, NamedSharding(mesh, P("i")))

ring = [(k, (k + 1) % 8) for k in range(8)]  # (source, destination) pairs
print("pairs:", ring[:3], "...", ring[-1])


def shift(block):
    """Send this block to the next device on the ring: (1,) -> (1,)."""
    return lax.ppermute(block, "i", perm=ring)


print("before:", x)
rotate = jax.jit(
    jax.shard_map(shift, mesh=mesh, in_specs=P("i"), out_specs=P("i"))
)
print("after: ", rotate(x))
