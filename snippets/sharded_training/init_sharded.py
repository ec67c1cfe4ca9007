import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding

from snippets.sharded_training._mlp import SPECS, init
from snippets.sharding._hlo import collectives

mesh = jax.make_mesh((4, 2), ("data", "model"))

# Shapes and dtypes only: init is traced, nothing is computed or stored.
shapes = jax.eval_shape(init, jax.random.key(0))
print("name  global shape   block per device")
for name, s in shapes.items():
    block = NamedSharding(mesh, SPECS[name]).shard_shape(s.shape)
    print(f"{name:5s} {s.shape!s:14s} {block}")

with jax.set_mesh(mesh):
    init_sharded = jax.jit(init, out_shardings=SPECS)
    params = init_sharded(jax.random.key(0))  # each device makes its blocks
    hlo = init_sharded.lower(jax.random.key(0)).compile().as_text()

print("w1:", jax.typeof(params["w1"]), "| w2:", jax.typeof(params["w2"]))
print("collectives in init:", collectives(hlo))
same = jax.tree.map(jnp.allclose, params, jax.jit(init)(jax.random.key(0)))
print("same values as on one device:", jax.tree.all(same))
