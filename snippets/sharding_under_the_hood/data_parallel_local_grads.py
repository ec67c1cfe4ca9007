import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import NamedSharding, PartitionSpec as P

from snippets.sharding._linear import loss, make_data

LR = 0.1
mesh = jax.make_mesh((8,), ("data",))
x, y = make_data(jax.random.key(0))  # 64 examples
params = {"w": jnp.zeros(4), "b": jnp.zeros(())}


def local_grads(params, x, y):
    """Per device: the gradient of its 8 examples alone."""
    local = lax.pcast(params, "data", to="varying")  # this device's own copy
    return jax.grad(loss)(local, x, y)


def dp_step(params, x, y):
    """Per-device SGD step. params: replicated, x: (64/8, d), y: (64/8,)."""
    grads = local_grads(params, x, y)
    norm = jnp.sqrt(sum(jnp.sum(g**2) for g in jax.tree.leaves(grads)))
    print("local gradient norm:", jax.typeof(norm))  # varying: one per device
    grads = lax.pmean(grads, "data")  # average the 8 gradients
    return jax.tree.map(lambda p, g: p - LR * g, params, grads)


dp_step = jax.jit(
    jax.shard_map(
        dp_step, mesh=mesh, in_specs=(P(), P("data"), P("data")), out_specs=P()
    )
)


@jax.jit
def step(params, x, y):
    """Reference: one SGD step on the full batch, one device."""
    grads = jax.grad(loss)(params, x, y)
    return jax.tree.map(lambda p, g: p - LR * g, params, grads)


batch = NamedSharding(mesh, P("data"))
new_dp = dp_step(params, jax.device_put(x, batch), jax.device_put(y, batch))
new_ref = step(params, x, y)
print("allclose:", jax.tree.all(jax.tree.map(jnp.allclose, new_dp, new_ref)))
