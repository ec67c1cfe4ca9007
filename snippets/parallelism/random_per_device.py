import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((4,), ("data",), devices=jax.devices()[:4])
x = jax.device_put(jnp.ones((8, 3)), NamedSharding(mesh, P("data")))


def dropout_same_key(key, x):
    """Per device: x (2, 3), each entry zeroed with probability 1/2 or
    doubled."""
    keep = jax.random.bernoulli(key, 0.5, x.shape)
    return jnp.where(keep, 2 * x, 0.0)


def dropout_own_key(key, x):
    """The same, with a key of this device's own."""
    key = jax.random.fold_in(key, lax.axis_index("data"))
    print("key:", jax.typeof(key))  # printed while tracing: varying
    return dropout_same_key(key, x)


for fn in (dropout_same_key, dropout_own_key):  # the same key for both
    f = jax.shard_map(
        fn, mesh=mesh, in_specs=(P(), P("data")), out_specs=P("data")
    )
    out = jax.jit(f)(jax.random.key(0), x)
    blocks = np.asarray(out).reshape(4, 2, 3)  # block k: device k rows
    same = all(np.array_equal(blocks[0], b) for b in blocks[1:])
    print(f"{fn.__name__}: 4 devices drew the same mask:", same)
