# raises: ValueError
# match: out_specs which require replication
import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("i",))
x = jax.device_put(jnp.arange(16.0), NamedSharding(mesh, P("i")))


def local_sum(block):
    """Per device: block (2,) -> () varying: a different sum on each device."""
    return jnp.sum(block)  # forgot lax.psum


# out_specs=P() claims one value, the same on all 8 devices
f = jax.shard_map(local_sum, mesh=mesh, in_specs=P("i"), out_specs=P())
jax.jit(f)(x)
