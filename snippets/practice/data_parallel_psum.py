import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import NamedSharding, PartitionSpec as P

from practice.sharding.data_parallel_psum.solution import (
    dp_train_step,
    per_device_grads,
)


def loss_fn(params, x, y):
    """Mean squared error of a linear model. x: (m, 3), y: (m,) -> scalar."""
    return jnp.mean((x @ params["w"] + params["b"] - y) ** 2)


kx, kn = jax.random.split(jax.random.key(0))
x = jax.random.normal(kx, (64, 3))
y = x @ jnp.array([1.0, -2.0, 0.5]) + 0.3 + 0.1 * jax.random.normal(kn, (64,))
params = {"w": jnp.zeros(3), "b": jnp.zeros(())}
mesh = jax.make_mesh((8,), ("data",))

local = jax.device_get(per_device_grads(loss_fn, params, x, y, mesh))
full = jax.grad(loss_fn)(params, x, y)
print("per-device gradients of w:", local["w"].shape)
print("mean of local gradients:", local["w"].mean(axis=0).round(4))
print("full-batch gradient:    ", np.asarray(full["w"]).round(4))

# Without marking params as varying, grad inside shard_map already sums over
# "data"
rows = NamedSharding(mesh, P("data"))
auto = jax.shard_map(
    jax.grad(loss_fn),
    mesh=mesh,
    in_specs=(P(), P("data"), P("data")),
    out_specs=P(),
)(params, jax.device_put(x, rows), jax.device_put(y, rows))
print(
    "grad of replicated params in shard_map:", np.asarray(auto["w"]).round(4)
)
print(
    "sum of local gradients:                ", local["w"].sum(axis=0).round(4)
)

step = jax.jit(dp_train_step, static_argnums=(0, 4, 5))
for i in range(31):
    params, loss = step(loss_fn, params, x, y, mesh, 0.1)
    if i % 10 == 0:
        print(f"step {i:2d}  loss {float(loss):.4f}")
print(
    "w:",
    np.asarray(params["w"]).round(2),
    " b:",
    np.asarray(params["b"]).round(2),
)
print(
    "params replicated on 8 devices:", params["w"].sharding.is_fully_replicated
)
