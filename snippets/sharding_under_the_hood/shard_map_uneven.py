# raises: ValueError
# match: not evenly divisible
import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((8,), ("i",))


def double(block):
    """Per-device code. block: (n / 8,) -> (n / 8,)."""
    return 2 * block


doubled = jax.shard_map(double, mesh=mesh, in_specs=P("i"), out_specs=P("i"))
doubled(jnp.arange(10.0))  # 10 values, 8 devices
