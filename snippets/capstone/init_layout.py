# platform: gpu,tpu differs -- The SPMD partitioner inserts that backend's own collectives
import math
import re

import jax
from jax.sharding import AxisType

from snippets.capstone._model import SHAPES, init, shardings
from snippets.capstone._train import make_mesh
from snippets.sharding._hlo import collectives


def random_bits(program):
    """The shapes of the random-bit arrays (u32) of 1000 or more elements
    in a program's text, one device's share."""
    shapes = set(re.findall(r"u32\[(\d+)\]", program))
    return sorted(int(s) for s in shapes if int(s) >= 1000)


print("the capstone's mesh:", make_mesh().axis_types)
print("numbers drawn in all:", sum(math.prod(s) for s, _ in SHAPES.values()))
for axis_type in (AxisType.Auto, AxisType.Explicit):  # the same 4 x 2 mesh
    mesh = jax.make_mesh(
        (4, 2), ("data", "model"), axis_types=(axis_type,) * 2
    )
    with jax.set_mesh(mesh):
        init_sharded = jax.jit(init, out_shardings=shardings(mesh))
        program = init_sharded.lower(jax.random.key(0)).compile().as_text()
    print(
        f"{axis_type.name:8} axes: each device draws {random_bits(program)},"
        f" collectives {collectives(program)}"
    )
