import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("i",))
x = jax.device_put(jnp.arange(16.0), NamedSharding(mesh, P("i")))
w = jax.device_put(jnp.float32(3.0), NamedSharding(mesh, P()))


def scaled_total(block, w):
    """Per device: block (2,) varying, w () invariant -> () invariant."""
    local = jnp.sum(block) * w
    total = lax.psum(local, "i")
    shown = {
        "block": block,
        "w": w,
        "local": local,
        "psum(local)": total,
        "pcast(w, to='varying')": lax.pcast(w, "i", to="varying"),
    }
    for name, v in shown.items():
        print(f"{name:24s}", jax.typeof(v))
    return total


f = jax.shard_map(
    scaled_total, mesh=mesh, in_specs=(P("i"), P()), out_specs=P()
)
print("result:", jax.jit(f)(x, w))
