# raises: ValueError
# match: does not evenly divide
import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("i",))
jax.device_put(jnp.arange(10.0), NamedSharding(mesh, P("i")))  # 10 over 8
