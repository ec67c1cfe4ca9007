import jax
import jax.numpy as jnp
from jax.sharding import AxisType, PartitionSpec as P

mesh = jax.make_mesh(
    (4, 2), ("data", "model"), axis_types=(AxisType.Explicit, AxisType.Auto)
)
print(dict(zip(mesh.axis_names, mesh.axis_types)))
with jax.set_mesh(mesh):
    x = jax.device_put(jnp.ones((8, 6)), P("data", "model"))
    print("type:", jax.typeof(x), "| spec:", x.sharding.spec)
