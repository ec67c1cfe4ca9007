# platform: gpu,tpu differs -- XLA compiles the collectives for that backend, so they differ: a GPU (and likely a TPU slice) splits each into a `-start` and a `-done` operation, which `traffic()` does not count
import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import PartitionSpec as P

from snippets.sharding_costs._comm import traffic

mesh = jax.make_mesh((8,), ("data",))
N = 8  # devices
k1, k2, kx = jax.random.split(jax.random.key(0), 3)
params = {
    "w1": jax.random.normal(k1, (512, 256)) / 16,
    "w2": jax.random.normal(k2, (256, 512)) / 16,
}
x = jax.random.normal(kx, (64, 512))


def loss(params, x):
    """Autoencoder error. params: w1 (d, h), w2 (h, d), x: (n, d) -> ()."""
    return jnp.mean((jnp.tanh(x @ params["w1"]) @ params["w2"] - x) ** 2)


def momentum(p, m, g):
    """One SGD step with momentum on matching trees -> (new p, new m)."""
    m = jax.tree.map(lambda m, g: 0.9 * m + g, m, g)
    return jax.tree.map(lambda p, m: p - 0.1 * m, p, m), m


def my_rows(a):
    """This device's block of rows of a whole array a: (r, c) -> (r/N, c)."""
    size = a.shape[0] // N
    return lax.dynamic_slice_in_dim(a, lax.axis_index("data") * size, size)


def gather_copy(block):
    """All-gather the blocks into one whole array, typed as the same copy on
    every device (invariant), as a P() output needs: (r/N, c) -> (r, c)."""
    return lax.all_gather(block, "data", tiled=True, to="invarying")


def stage0(params, m, x):
    """Data parallel: whole params and momentum, the batch rows. The
    gradient of the copied params is summed over devices: an all-reduce."""
    value, g = jax.value_and_grad(loss)(params, x)  # g: the devices' sum
    return *momentum(params, m, jax.tree.map(lambda g: g / N, g)), value[None]


def stage1(params, m, x):
    """ZeRO-1: whole params, a block of the momentum. Reduce-scatter the
    gradient, update this device's block, all-gather the params."""
    local = lax.pcast(params, "data", to="varying")  # this device's copy
    value, g = jax.value_and_grad(loss)(local, x)  # this device's gradient
    g = lax.psum_scatter(g, "data", tiled=True)  # the sum of my rows
    g = jax.tree.map(lambda g: g / N, g)
    mine, m = momentum(jax.tree.map(my_rows, params), m, g)
    return jax.tree.map(gather_copy, mine), m, value[None]


def stage3(params, m, x):
    """ZeRO-3: a block of params and momentum. Each use gathers the
    params, once forward and once more backward (jax.checkpoint); the
    gradient of the gather is a reduce-scatter."""

    @jax.checkpoint
    def gathered_loss(params, x):
        """loss on the params gathered whole."""
        full = jax.tree.map(
            lambda p: lax.all_gather(p, "data", tiled=True), params
        )
        return loss(full, x)

    value, g = jax.value_and_grad(gathered_loss)(params, x)
    return *momentum(params, m, jax.tree.map(lambda g: g / N, g)), value[None]


STAGES = {  # per-device step, spec of the params, spec of the momentum
    "stage 0 (data parallel)": (stage0, P(), P()),
    "stage 1 (and 2)": (stage1, P(), P("data")),
    "stage 3": (stage3, P("data"), P("data")),
}
print(
    f"params {4 * 2 * 512 * 256 / 2**10:.0f} KiB (float32), "
    f"batch split over {N}"
)
sent = {}
with jax.set_mesh(mesh):
    for name, (local, p_spec, m_spec) in STAGES.items():
        step = jax.jit(
            jax.shard_map(
                local,
                in_specs=(p_spec, m_spec, P("data")),
                out_specs=(p_spec, m_spec, P("data")),  # and each loss
            )
        )
        p = jax.device_put(params, p_spec)
        m = jax.device_put(jax.tree.map(jnp.zeros_like, params), m_spec)
        rows = traffic(
            step.lower(p, m, jax.device_put(x, P("data"))).compile().as_text()
        )
        sent[name] = sum(row[3] for row in rows)
        ops = ", ".join(f"{op} {full / 2**10:.0f}" for op, full, _, _ in rows)
        print(
            f"{name:24} KiB sent per device {sent[name] / 2**10:6.0f}"
            f" | F in KiB: {ops}"
        )
dp = sent["stage 0 (data parallel)"]
for name in STAGES:
    print(f"{name:24} / data parallel: {sent[name] / dp:.2f}")
