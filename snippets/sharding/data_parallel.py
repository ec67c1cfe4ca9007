import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import NamedSharding, PartitionSpec as P

from _hlo import result_types, without_layouts

# a linear model x @ w + b and its mean squared error
from _linear import loss, make_data

LR = 0.1
mesh = jax.make_mesh((8,), ("data",))
x, y = make_data(jax.random.key(0))  # 64 examples
params = {"w": jnp.zeros(4), "b": jnp.zeros(())}


def local_loss(params, x, y):
    """Per device: the loss of its 8 examples, averaged over the devices."""
    return lax.pmean(loss(params, x, y), "data")


dp_loss = jax.shard_map(
    local_loss, mesh=mesh, in_specs=(P(), P("data"), P("data")), out_specs=P()
)


@jax.jit
def dp_step(params, x, y):
    """SGD step; the gradient is taken outside shard_map."""
    grads = jax.grad(dp_loss)(params, x, y)
    return jax.tree.map(lambda p, g: p - LR * g, params, grads)


@jax.jit
def step(params, x, y):
    """Reference: one SGD step on the full batch, one device."""
    grads = jax.grad(loss)(params, x, y)
    return jax.tree.map(lambda p, g: p - LR * g, params, grads)


batch = NamedSharding(mesh, P("data"))
xs, ys = jax.device_put(x, batch), jax.device_put(y, batch)
new_dp, new_ref = dp_step(params, xs, ys), step(params, x, y)
hlo = dp_step.lower(params, xs, ys).compile().as_text()
for shapes in result_types(hlo, "all-reduce"):  # the shapes it sums
    print("compiled step: all-reduce of", without_layouts(shapes))

print(f"b after one step: {new_dp['b']:.5f}, one device: {new_ref['b']:.5f}")
same = jax.tree.all(jax.tree.map(jnp.allclose, new_dp, new_ref))
print("same as one device, to float32 rounding:", same)
