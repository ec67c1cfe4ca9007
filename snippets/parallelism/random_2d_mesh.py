import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((4, 2), ("data", "model"))
x = jax.device_put(jnp.ones((8, 32)), NamedSharding(mesh, P("data", "model")))


def dropout(key, x, axes):
    """Per device: x (2, 16) block, each entry zeroed with probability 1/2
    or doubled, with the device's position on `axes` folded into key."""
    for axis in axes:
        key = jax.random.fold_in(key, lax.axis_index(axis))
    keep = jax.random.bernoulli(key, 0.5, x.shape)
    return jnp.where(keep, 2 * x, 0.0)


for axes in (("data",), ("data", "model")):
    f = jax.shard_map(
        lambda key, x: dropout(key, x, axes),
        mesh=mesh,
        in_specs=(P(), P("data", "model")),
        out_specs=P("data", "model"),
    )
    out = np.asarray(jax.jit(f)(jax.random.key(0), x))
    # the (2, 16) blocks of the 8 devices, in mesh order
    blocks = out.reshape(4, 2, 2, 16).transpose(0, 2, 1, 3).reshape(8, 2, 16)
    masks = {blocks[k].tobytes() for k in range(8)}
    print(f"folded {' and '.join(axes):14}: {len(masks)} different masks of 8")
