import jax
import jax.numpy as jnp

from practice.sharding.tensor_parallel_matmul.solution import (
    column_parallel,
    tp_mlp,
)

kx, k1, k2 = jax.random.split(jax.random.key(0), 3)
x = jax.random.normal(kx, (4, 16))  # (B, D)
w1 = jax.random.normal(k1, (16, 64)) / 4.0  # (D, H), split by columns
w2 = jax.random.normal(k2, (64, 16)) / 8.0  # (H, D), split by rows
mesh = jax.make_mesh((8,), ("model",))

h = column_parallel(x, w1, mesh)
print(
    "hidden:",
    h.shape,
    "laid out as",
    h.sharding.spec,
    "-> block per device",
    h.addressable_shards[0].data.shape,
)

y = tp_mlp(x, w1, w2, mesh)
dense = jax.nn.gelu(x @ w1) @ w2
print("output:", y.shape, "replicated:", y.sharding.is_fully_replicated)
print("allclose to the dense result:", jnp.allclose(y, dense, atol=1e-6))


def all_eqns(jaxpr):
    """Every equation of a jaxpr, including those nested inside shard_map."""
    for eqn in jaxpr.eqns:
        yield eqn
        for param in eqn.params.values():
            sub = getattr(param, "jaxpr", param)
            if hasattr(sub, "eqns"):
                yield from all_eqns(sub)


jaxpr = jax.make_jaxpr(lambda a, b, c: tp_mlp(a, b, c, mesh))(x, w1, w2).jaxpr
names = [eqn.primitive.name for eqn in all_eqns(jaxpr)]
collectives = (
    "psum",
    "all_gather",
    "all_to_all",
    "ppermute",
    "reduce_scatter",
    "pmax",
    "pmin",
)
print(
    "collectives in the forward pass:",
    [n for n in names if n.startswith(collectives)],
)
