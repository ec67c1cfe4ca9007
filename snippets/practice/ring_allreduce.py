import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import NamedSharding, PartitionSpec as P

from practice.sharding.ring_allreduce.solution import ring_allreduce

n = 8
mesh = jax.make_mesh((n,), ("ring",))
# device i holds 8 numbers: 8i .. 8i+7
blocks = jnp.arange(n * 8, dtype=jnp.float32)
x = jax.device_put(blocks, NamedSharding(mesh, P("ring")))


def on_ring(fn):
    """Apply fn to each device's (8,) block; the result is the concatenation of
    the blocks."""
    return jax.jit(
        jax.shard_map(fn, mesh=mesh, in_specs=P("ring"), out_specs=P("ring"))
    )


ring = on_ring(lambda block: ring_allreduce(block, "ring"))
psum = on_ring(lambda block: jax.lax.psum(block, "ring"))
out = ring(x)
print("block of device 0 before:", np.asarray(x.addressable_shards[0].data))
print("block of device 0 after: ", np.asarray(out.addressable_shards[0].data))
print("block of device 5 after: ", np.asarray(out.addressable_shards[5].data))
print("equals lax.psum:", bool(jnp.array_equal(out, psum(x))))


def all_eqns(jaxpr):
    """Every equation of a jaxpr, including those nested inside jit and
    shard_map."""
    for eqn in jaxpr.eqns:
        yield eqn
        for param in eqn.params.values():
            sub = getattr(param, "jaxpr", param)
            if hasattr(sub, "eqns"):
                yield from all_eqns(sub)


jaxpr = jax.make_jaxpr(ring)(x).jaxpr
sends = [
    e.invars[0].aval.shape
    for e in all_eqns(jaxpr)
    if e.primitive.name == "ppermute"
]
print(
    f"ppermute calls: {len(sends)} = 2 * (n - 1); shapes of the chunks they "
    f"move: {sorted(set(sends))}"
)
