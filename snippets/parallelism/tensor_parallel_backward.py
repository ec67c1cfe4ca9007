import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import PartitionSpec as P

from snippets.sharding._hlo import result_types

mesh = jax.make_mesh((8,), ("model",))
k = jax.random.split(jax.random.key(0), 5)
params = [  # two blocks: w1 (d, 4d) split by columns, w2 (4d, d) by rows
    (
        jax.random.normal(k[i], (16, 64)) / 4.0,
        jax.random.normal(k[i + 2], (64, 16)) / 8.0,
    )
    for i in (0, 1)
]
x = jax.random.normal(k[4], (4, 16))


def mlp_block(x, w1_cols, w2_rows):
    """Per-device MLP block, as above. x: (batch, d) -> (batch, d)."""
    h = jnp.tanh(x @ w1_cols)
    return lax.psum(h @ w2_rows, "model")  # the forward pass's only collective


def two_blocks(params, x):
    """Two residual MLP blocks, per device. x: (batch, d) -> (batch, d)."""
    for w1_cols, w2_rows in params:
        x = x + mlp_block(x, w1_cols, w2_rows)
    return x


def loss(params, x):
    """A scalar to differentiate. -> ()."""
    return jnp.sum(two_blocks(params, x) ** 2)


specs = ([(P(None, "model"), P("model", None))] * 2, P())
forward = jax.shard_map(two_blocks, mesh=mesh, in_specs=specs, out_specs=P())
tp_loss = jax.shard_map(loss, mesh=mesh, in_specs=specs, out_specs=P())
programs = {
    "forward pass": jax.jit(forward),
    "gradient, weights only": jax.jit(jax.grad(tp_loss)),
    "gradient, weights and x": jax.jit(jax.grad(tp_loss, argnums=(0, 1))),
}
with jax.set_mesh(mesh):
    args = jax.device_put((params, x), specs)
    for name, f in programs.items():
        sums = result_types(f.lower(*args).compile().as_text(), "all-reduce")
        print(f"{name:23}: {len(sums)} all-reduce of", *sorted(set(sums)))
    grads = programs["gradient, weights only"](*args)


def one_device_loss(params, x):
    """The same loss with whole matrices on one device. -> ()."""
    for w1, w2 in params:
        x = x + jnp.tanh(x @ w1) @ w2
    return jnp.sum(x**2)


close = jax.tree.map(
    lambda a, b: jnp.allclose(a, b, rtol=1e-5, atol=1e-5),
    grads,
    jax.grad(one_device_loss)(params, x),
)
print("gradient equals the one-device gradient:", jax.tree.all(close))
