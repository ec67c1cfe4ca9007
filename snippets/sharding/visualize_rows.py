import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

from _colors import DARK

mesh = jax.make_mesh((4, 2), ("data", "model"))
x = jax.device_put(jnp.zeros((8, 4)), NamedSharding(mesh, P("data")))

print('P("data"): rows split 4 ways, each block on both "model" devices')
jax.debug.visualize_array_sharding(x, color_map=DARK)
