import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import NamedSharding, PartitionSpec as P

from snippets.sharding._linear import loss, make_data

LR = 0.1
mesh = jax.make_mesh((8,), ("data",))
x, y = make_data(jax.random.key(0))  # 64 examples
params = {"w": jnp.zeros(4), "b": jnp.zeros(())}


@jax.jit
def step(params, x, y):
    """Reference: one SGD step on the full batch, one device."""
    grads = jax.grad(loss)(params, x, y)
    return jax.tree.map(lambda p, g: p - LR * g, params, grads)


def dp_step(params, x, y):
    """Per-device SGD step. params: replicated, x: (64/8, d), y: (64/8,)."""
    local = lax.pcast(params, "data", to="varying")  # this device's own copy
    grads = jax.grad(loss)(local, x, y)  # gradient of the local 8 examples
    grads = lax.pmean(grads, "data")  # average the 8 gradients
    return jax.tree.map(lambda p, g: p - LR * g, params, grads)


dp_step = jax.jit(
    jax.shard_map(
        dp_step, mesh=mesh, in_specs=(P(), P("data"), P("data")), out_specs=P()
    )
)

batch = NamedSharding(mesh, P("data"))
new_dp = dp_step(params, jax.device_put(x, batch), jax.device_put(y, batch))
new_ref = step(params, x, y)


def rounded(params):
    """params, rounded to 5 decimals for printing."""
    return jax.tree.map(lambda p: jnp.round(p, 5), params)


dp, ref = rounded(new_dp), rounded(new_ref)
print("data parallel w:", dp["w"], "b:", dp["b"])
print("one device    w:", ref["w"], "b:", ref["b"])
print("allclose:", jax.tree.all(jax.tree.map(jnp.allclose, new_dp, new_ref)))
