# raises: ValueError
# match: does not match the specs of the input
import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((8,), ("i",))
x = jnp.arange(16.0)  # one device, not split


def block_sum(block):
    """Per-device code. block: (n / 8,) -> scalar."""
    return lax.psum(jnp.sum(block), "i")


total = jax.shard_map(block_sum, mesh=mesh, in_specs=P("i"), out_specs=P())
total(x)
