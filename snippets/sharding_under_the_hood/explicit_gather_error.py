# raises: jax._src.core.ShardingTypeError
# match: Use `.at\[...\].get\(out_sharding=\)`
import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",))  # Explicit axes: the default
with jax.set_mesh(mesh):
    table = jax.device_put(jax.random.normal(jax.random.key(0), (32, 16)), P())
    ids = jax.device_put(jnp.arange(64) % 32, P("data"))  # token ids, split
    print("table:", jax.typeof(table), "| ids:", jax.typeof(ids))
    # an embedding lookup, the first operation of a language model: the
    # rows to fetch are split, the table is not; where does the result live?
    jax.jit(lambda t, i: t[i])(table, ids)
