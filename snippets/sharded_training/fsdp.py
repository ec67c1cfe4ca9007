import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import PartitionSpec as P

from snippets.sharding._hlo import collectives

from _mlp import batch, init, loss

mesh = jax.make_mesh((8,), ("data",))


def local_loss(params, x, y):
    """Per device: gather the whole parameters from their 8 blocks, then
    the loss of this device's examples, averaged over the devices."""
    # tiled=True: concatenate the blocks along the split dimension
    whole = jax.tree.map(
        lambda p: lax.all_gather(p, "data", tiled=True), params
    )
    return lax.pmean(loss(whole, x, y), "data")


# Every input is split over "data": the batch and each parameter's rows.
fsdp_loss = jax.shard_map(
    local_loss, mesh=mesh, in_specs=P("data"), out_specs=P()
)
fsdp_grad = jax.jit(jax.grad(fsdp_loss))  # the gradient, taken outside

params = init(jax.random.key(0))
x, y = batch(jax.random.key(1), 64)
with jax.set_mesh(mesh):
    sharded = jax.device_put((params, x, y), P("data"))
    grads = fsdp_grad(*sharded)
    jaxpr = str(jax.make_jaxpr(jax.grad(fsdp_loss))(*sharded))
    hlo = fsdp_grad.lower(*sharded).compile().as_text()

print(
    "w1:", jax.typeof(sharded[0]["w1"]), "| gradient:", jax.typeof(grads["w1"])
)
print(
    "in the gradient's jaxpr: all_gather",
    "all_gather" in jaxpr,
    "| reduce_scatter",
    "reduce_scatter" in jaxpr,
)
print("compiled:", collectives(hlo))
one = jax.grad(loss)(params, x, y)
close = jax.tree.map(lambda a, b: jnp.allclose(a, b, atol=1e-6), grads, one)
print("equals the one-device gradient:", jax.tree.all(close))
