# platform: gpu,tpu differs -- XLA compiles the collectives for that backend, so they differ: a GPU (and likely a TPU slice) splits each into a `-start` and a `-done` operation, which `traffic()` does not count
import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import AxisType, NamedSharding, PartitionSpec as P

from snippets.sharding._hlo import collectives
from snippets.sharding_costs._comm import traffic

mesh = jax.make_mesh((8,), ("model",))
k = jax.random.split(jax.random.key(0), 3)
w1 = jax.random.normal(k[0], (16, 64)) / 4.0  # split by columns
w2 = jax.random.normal(k[1], (64, 16)) / 8.0  # split by rows
x = jax.random.normal(k[2], (32, 16))  # 32 positions of a sequence, d = 16


def norm(x):
    """RMS normalisation of each position. x: (s, d) -> (s, d)."""
    return x / jnp.sqrt(jnp.mean(x**2, axis=-1, keepdims=True) + 1e-6)


def tensor_parallel(x, w1_cols, w2_rows):
    """Per device, x (s, d) whole: norm and residual on every device."""
    h = jnp.tanh(norm(x) @ w1_cols)
    return x + lax.psum(h @ w2_rows, "model")


def sequence_parallel(x_seq, w1_cols, w2_rows):
    """Per device, x_seq (s / 8, d): norm and residual on 1/8 of the
    positions; gather the positions before the first product, and
    reduce-scatter them after the second."""
    x_all = lax.all_gather(norm(x_seq), "model", axis=0, tiled=True)
    h = jnp.tanh(x_all @ w1_cols)
    y = lax.psum_scatter(h @ w2_rows, "model", scatter_dimension=0, tiled=True)
    return x_seq + y


expected = x + jnp.tanh(norm(x) @ w1) @ w2


def report(name, block, *args):
    """Print one device's share of the output, the collectives, the bytes
    each device sends (by the ring formulas of What sharding costs), and a
    check."""
    y = block(*args)
    program = block.lower(*args).compile().as_text()
    print(
        f"{name:17}: per device {y.addressable_shards[0].data.shape}",
        f"| {collectives(program)}",
        f"| {sum(row[3] for row in traffic(program)):.0f} B sent",
        f"| correct {bool(jnp.allclose(y, expected, atol=1e-5))}",
    )


w_specs = (P(None, "model"), P("model", None))
with jax.set_mesh(mesh):
    ws = jax.device_put((w1, w2), w_specs)
    for f, spec in ((tensor_parallel, P()), (sequence_parallel, P("model"))):
        specs = dict(in_specs=(spec, *w_specs), out_specs=spec)
        block = jax.jit(jax.shard_map(f, mesh=mesh, **specs))
        report(f.__name__, block, jax.device_put(x, spec), *ws)

# the same layouts under jit, stated with with_sharding_constraint
auto = jax.make_mesh((8,), ("model",), axis_types=(AxisType.Auto,))
positions = NamedSharding(auto, P("model", None))
hidden = NamedSharding(auto, P(None, "model"))


@jax.jit
def block_jit(x, w1, w2):
    """The block on whole arrays; the constraints place the positions."""
    x = lax.with_sharding_constraint(x, positions)
    h = lax.with_sharding_constraint(jnp.tanh(norm(x) @ w1), hidden)
    return lax.with_sharding_constraint(x + h @ w2, positions)


rows = NamedSharding(auto, P("model"))
report(
    "jit + constraints",
    block_jit,
    *jax.device_put((x, w1, w2), (positions, hidden, rows)),
)
