import jax
import jax.numpy as jnp

from practice.sharding.mesh_named_sharding.solution import (
    logical_to_spec,
    make_mesh,
    shard_shape,
    shard_tree,
)
from snippets.sharding._colors import DARK

mesh = make_mesh(4, 2)
print("mesh:", dict(mesh.shape), "axis types:", mesh.axis_types)

rules = {"batch": "data", "embed": None, "mlp": "model"}
print("('batch', 'embed') ->", logical_to_spec(("batch", "embed"), rules))
params = {"w1": jnp.ones((8, 16)), "w2": jnp.ones((16, 8))}
batch = {"x": jnp.ones((8, 8))}
axes = {"w1": ("embed", "mlp"), "w2": ("mlp", "embed")}

placed = shard_tree(params, axes, mesh, rules)
x = shard_tree(batch, {"x": ("batch", "embed")}, mesh, rules)["x"]
for name, arr in [("w1", placed["w1"]), ("w2", placed["w2"]), ("x", x)]:
    spec = arr.sharding.spec
    print(
        f"{name}: shape {arr.shape}, spec {spec}, block "
        f"{shard_shape(arr.shape, spec, mesh)}, "
        f"block on device 0 {arr.addressable_shards[0].data.shape}"
    )

jax.debug.visualize_array_sharding(placed["w1"], color_map=DARK)

h = jax.jit(lambda x, w: x @ w)(x, placed["w1"])
print("x @ w1 is laid out as", h.sharding.spec)
