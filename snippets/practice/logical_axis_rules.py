import jax
from jax.sharding import NamedSharding

from practice.capstone.logical_axis_rules.solution import (
    logical_to_spec,
    tree_specs,
)

RULES = [
    ("batch", "data"),
    ("vocab", "model"),
    ("embed", "data"),  # FSDP: embed over data ...
    ("embed", "model"),  # ... or over model when data is taken
    ("mlp", "model"),
]
mesh = jax.make_mesh((4, 2), ("data", "model"))  # 4 x 2: ("data", "model")
arrays = {  # logical names and shape of each array
    "embedding": (("vocab", "embed"), (96, 64)),
    "activations": (("batch", "embed"), (16, 64)),
    "odd vocab": (("vocab", "embed"), (91, 64)),
    "up": (("embed", "mlp"), (64, 256)),
}
for label, (names, shape) in arrays.items():
    spec = logical_to_spec(names, RULES, shape, dict(mesh.shape))
    block = NamedSharding(mesh, spec).shard_shape(shape)
    print(f"{label:11} {names} {shape} -> {spec}, block {block}")

print(tree_specs({"w": ("embed", "mlp"), "b": [("mlp",), ()]}, RULES))
