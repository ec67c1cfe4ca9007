# raises: jax._src.core.ShardingTypeError
# match: Contracting dimensions are sharded
import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",))  # Explicit axes: the default
a = jax.device_put(jnp.ones((16, 32)), NamedSharding(mesh, P(None, "data")))
b = jax.device_put(jnp.ones((32, 8)), NamedSharding(mesh, P("data", None)))
print("a:", jax.typeof(a), " b:", jax.typeof(b))

# each device holds a slice of the inner dimension: where should a @ b live?
jax.jit(jnp.matmul)(a, b)
