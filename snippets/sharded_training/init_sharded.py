import re

import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding

from snippets.sharded_training._mlp import SPECS, init, init_in_place
from snippets.sharding._hlo import collectives

mesh = jax.make_mesh((4, 2), ("data", "model"))

# Shapes and dtypes only: init is traced, nothing is computed or stored.
shapes = jax.eval_shape(init, jax.random.key(0))
print("name  global shape   block per device")
for name, s in shapes.items():
    block = NamedSharding(mesh, SPECS[name]).shard_shape(s.shape)
    print(f"{name:5s} {s.shape!s:14s} {block}")


def random_bits(program):
    """The shapes of the 2-D random-bit arrays (u32) in a program's text."""
    return sorted(set(re.findall(r"u32\[\d+,\d+\]", program)))


with jax.set_mesh(mesh):
    after = jax.jit(init, out_shardings=SPECS)  # draws whole, then slices
    in_place = jax.jit(init_in_place)  # draws each device's blocks
    params = in_place(jax.random.key(0))
    temp = {}
    for name, f in [("out_shardings only", after), ("auto_axes", in_place)]:
        c = f.lower(jax.random.key(0)).compile()
        temp[name] = c.memory_analysis().temp_size_in_bytes
        print(
            f"{name:18s} random bits {random_bits(c.as_text())},"
            f" temp {temp[name]} bytes, collectives {collectives(c.as_text())}"
        )
print(
    f"temp, auto_axes / out_shardings only: "
    f"{temp['auto_axes'] / temp['out_shardings only']:.2f}"
)

print("w1:", jax.typeof(params["w1"]), "| w2:", jax.typeof(params["w2"]))
same = jax.tree.map(jnp.array_equal, params, jax.jit(init)(jax.random.key(0)))
print("same values as on one device:", jax.tree.all(same))
