# platform: gpu,tpu differs -- XLA compiles the collectives for that backend, so they differ: a GPU (and likely a TPU slice) splits each into a `-start` and a `-done` operation, which `traffic()` does not count
import jax
import jax.numpy as jnp
import optax
from jax.sharding import AxisType, NamedSharding, PartitionSpec as P

from snippets.sharding._hlo import collectives, result_types
from snippets.sharding_costs._comm import traffic

mesh = jax.make_mesh((8,), ("data",), axis_types=(AxisType.Auto,))
k1, k2, kx = jax.random.split(jax.random.key(0), 3)
params = {
    "w1": jax.random.normal(k1, (512, 256)) / 16,
    "w2": jax.random.normal(k2, (256, 512)) / 16,
}
x = jax.random.normal(kx, (64, 512))
tx = optax.adam(1e-3)
rows = NamedSharding(mesh, P("data"))  # the batch layout


def loss(params, x):
    """Autoencoder error. params: w1 (d, h), w2 (h, d), x: (n, d) -> ()."""
    # Activations keep the batch split (data parallelism), so the compiler
    # cannot move the batch instead of the weights.
    h = jax.lax.with_sharding_constraint(jnp.tanh(x @ params["w1"]), rows)
    y = jax.lax.with_sharding_constraint(h @ params["w2"], rows)
    return jnp.mean((y - x) ** 2)


def layout(tree, split):
    """Shardings for tree: first axis over "data" if split, else copies."""

    def sharding(a):
        """The sharding of one leaf a: rows split, or a copy per device."""
        return NamedSharding(mesh, P("data") if split and a.ndim else P())

    return jax.tree.map(sharding, tree)


def mib_on_device_0(tree):
    """MiB of the shards of all leaves of tree held by device 0."""
    shards = (a.addressable_shards[0].data for a in jax.tree.leaves(tree))
    return sum(s.nbytes for s in shards) / 2**20


def make_step(stage):
    """ZeRO stage 0-3 -> (jitted step, param shardings, Adam shardings)."""
    p_sh = layout(params, stage >= 3)
    o_sh = layout(tx.init(params), stage >= 1)
    g_sh = layout(params, stage >= 2)

    def step(params, opt_state, x):
        grads = jax.grad(loss)(params, x)
        grads = jax.lax.with_sharding_constraint(grads, g_sh)
        updates, opt_state = tx.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state

    return (
        jax.jit(
            step,
            in_shardings=(p_sh, o_sh, rows),
            out_shardings=(p_sh, o_sh),
        ),
        p_sh,
        o_sh,
    )


header = "MiB per device  params   adam | arguments outputs  temp total"
print(header, "| collectives")
results, compiled, sizes = [], [], []
for stage in range(4):
    step, p_sh, o_sh = make_step(stage)
    p, o = jax.device_put(params, p_sh), jax.device_put(tx.init(params), o_sh)
    compiled.append(step.lower(p, o, x).compile())
    mem = compiled[-1].memory_analysis()  # per device, in bytes
    sizes.append(
        (
            mem.argument_size_in_bytes,
            mem.output_size_in_bytes,
            mem.temp_size_in_bytes,
        )
    )
    new_p, new_o = step(p, o, x)
    results.append(new_p)
    print(
        f"stage {stage}: {mib_on_device_0(new_p):14.3f} "
        f"{mib_on_device_0(new_o):6.3f} |"
        f" {mem.argument_size_in_bytes / 2**20:9.3f}"
        f" {mem.output_size_in_bytes / 2**20:7.3f}"
        f" {mem.temp_size_in_bytes / 2**20:5.3f}"
        f" {sum(sizes[-1]) / 2**20:5.3f}"
        f" | {', '.join(collectives(compiled[-1].as_text()))}"
    )
print("stages 1 and 2 compile to the same sizes:", sizes[1] == sizes[2])
for stage in (1, 2):
    print(
        f"stage {stage} all-reduces the whole gradient:",
        *result_types(compiled[stage].as_text(), "all-reduce"),
    )
for op in ("all-gather", "all-reduce"):
    print(f"stage 3 {op}:", *result_types(compiled[3].as_text(), op))
adam = layout(tx.init(params), True)[0]
print(
    "sharded Adam state: mu['w1']",
    adam.mu["w1"].spec,
    "| step count",
    adam.count.spec,
)
same = all(
    jax.tree.all(
        jax.tree.map(lambda a, b: jnp.allclose(a, b, atol=1e-4), r, results[0])
    )
    for r in results[1:]
)
print("updated params of all stages equal to within 1e-4:", same)
# Bytes each device sends, by the ring formulas of What sharding costs,
# read from the programs.
for stage, c in enumerate(compiled):
    sent = sum(row[3] for row in traffic(c.as_text()))
    print(f"stage {stage} sends per device: {sent / 2**10:.0f} KiB")
