import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("i",))
x = jax.device_put(jnp.arange(16.0), NamedSharding(mesh, P("i")))


def block_sum(block):
    """Per-device code. block: (n / 8,) -> scalar."""
    # runs once, at trace time
    print("block seen by each device:", block.shape)
    return lax.psum(jnp.sum(block), "i")  # add the 8 partial sums


total = jax.jit(
    jax.shard_map(block_sum, mesh=mesh, in_specs=P("i"), out_specs=P())
)
print("psum of block sums:", total(x))
print("jnp.sum:           ", jnp.sum(x))
