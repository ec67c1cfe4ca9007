import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import NamedSharding, PartitionSpec as P

from snippets.sharding._linear import loss, make_data

mesh = jax.make_mesh((8,), ("data",))
x, y = make_data(jax.random.key(0))
params = {"w": jnp.zeros(4), "b": jnp.zeros(())}
batch = NamedSharding(mesh, P("data"))
x_sharded, y_sharded = jax.device_put(x, batch), jax.device_put(y, batch)
g_full = jax.jit(jax.grad(loss))(params, x, y)


def grads_no_pcast(params, x, y):
    """grad of replicated params, no collective: JAX sums over devices."""
    return jax.grad(loss)(params, x, y)


def grads_no_pcast_pmean(params, x, y):
    """The same, followed by the pmean of the older convention."""
    return lax.pmean(jax.grad(loss)(params, x, y), "data")


def grads_no_pcast_divided(params, x, y):
    """The automatic sum over the devices, divided by their number."""
    n = lax.axis_size("data")
    return jax.tree.map(lambda g: g / n, jax.grad(loss)(params, x, y))


for fn in (grads_no_pcast, grads_no_pcast_pmean, grads_no_pcast_divided):
    g = jax.jit(
        jax.shard_map(
            fn, mesh=mesh, in_specs=(P(), P("data"), P("data")), out_specs=P()
        )
    )(params, x_sharded, y_sharded)
    print(
        f"{fn.__name__:22s} w / full-batch w:",
        jnp.round(g["w"] / g_full["w"], 4),
        " b / full-batch b:",
        jnp.round(g["b"] / g_full["b"], 4),
    )
