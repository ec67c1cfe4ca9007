import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",))
a = jax.device_put(jnp.ones((16, 32)), NamedSharding(mesh, P(None, "data")))
b = jax.device_put(jnp.ones((32, 8)), NamedSharding(mesh, P("data", None)))

try:
    jax.jit(jnp.matmul)(a, b)
except Exception as err:  # JAX 0.12 exports no public name for this class
    if type(err).__name__ != "ShardingTypeError":
        raise  # anything else is a different bug
    caught = err

print("caught:", type(caught).__name__)
print("in jax.errors:", hasattr(jax.errors, "ShardingTypeError"))
print("a TypeError:", isinstance(caught, TypeError))
print("message:", str(caught).split(". ")[0])
