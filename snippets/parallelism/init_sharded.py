import re

import jax
import jax.numpy as jnp
from jax.sharding import AxisType, NamedSharding

from snippets.sharded_training._mlp import SPECS, D, H, init, init_in_place
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


def init_typed(key):
    """init with each draw's layout stated: out_sharding= on every draw."""
    k1, k2 = jax.random.split(key)
    return {
        "w1": jax.random.normal(k1, (D, H), out_sharding=SPECS["w1"])
        / jnp.sqrt(D),
        "b1": jnp.zeros(H, out_sharding=SPECS["b1"]),
        "w2": jax.random.normal(k2, (H, D), out_sharding=SPECS["w2"])
        / jnp.sqrt(H),
        "b2": jnp.zeros(D),
    }


with jax.set_mesh(mesh):
    after = jax.jit(init, out_shardings=SPECS)  # draws whole, then slices
    in_place = jax.jit(init_in_place)  # draws each device's blocks
    params = in_place(jax.random.key(0))
    typed = jax.jit(init_typed)  # draws each device's blocks too
    params_typed = typed(jax.random.key(0))
    temp = {}
    versions = [
        ("out_shardings only", after),
        ("auto_axes", in_place),
        ("out_sharding=", typed),
    ]
    for name, f in versions:
        c = f.lower(jax.random.key(0)).compile()
        temp[name] = c.memory_analysis().temp_size_in_bytes
        print(
            f"{name:18s} random bits {random_bits(c.as_text())},"
            f" temp {temp[name]} bytes, collectives {collectives(c.as_text())}"
        )
# The same out_shardings on a mesh whose axes are Auto.
auto = jax.make_mesh(
    (4, 2), ("data", "model"), axis_types=(AxisType.Auto,) * 2
)
c = (
    jax.jit(
        init,
        out_shardings=jax.tree.map(lambda s: NamedSharding(auto, s), SPECS),
    )
    .lower(jax.random.key(0))
    .compile()
)
print(f"out_shardings only, Auto mesh: random bits {random_bits(c.as_text())}")
print(
    f"temp, auto_axes / out_shardings only: "
    f"{temp['auto_axes'] / temp['out_shardings only']:.2f}"
)

print("w1:", jax.typeof(params["w1"]), "| w2:", jax.typeof(params["w2"]))
one = jax.jit(init)(jax.random.key(0))
same = [
    jax.tree.all(jax.tree.map(jnp.array_equal, p, one))
    for p in (params, params_typed)
]
print("same values as on one device (auto_axes, out_sharding=):", *same)
