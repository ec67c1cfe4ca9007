import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import PartitionSpec as P

from snippets.sharding._hlo import collectives, result_types

mesh = jax.make_mesh((8,), ("data",))
L, D = 8, 256  # 8 layers of (256, 256) float32 weights: 0.25 MiB each
kw, kx = jax.random.split(jax.random.key(0))
ws = jax.random.normal(kw, (L, D, D)) / 16
x = jax.random.normal(kx, (64, D))


def layer(h, w):
    """One layer, as a scan body. h: (n, D), w: (D, D) -> ((n, D), None)."""
    return jnp.tanh(h @ w), None


def gather_per_layer(ws, x):
    """Per device: scan over the layers, gathering each layer's weights
    inside the body. ws: (L, D / 8, D) blocks, x: (n / 8, D) -> ()."""

    def body(h, w_block):
        """Gather this layer's (D, D) weights from their 8 blocks, apply it."""
        return layer(h, lax.all_gather(w_block, "data", axis=0, tiled=True))

    h, _ = lax.scan(jax.checkpoint(body), x, ws)  # gather again in backward
    return lax.pmean(jnp.mean(h**2), "data")


def gather_all_at_once(ws, x):
    """Per device: gather every layer's weights first, then scan.
    ws: (L, D / 8, D) blocks, x: (n / 8, D) -> ()."""
    whole = lax.all_gather(ws, "data", axis=1, tiled=True)  # (L, D, D)
    h, _ = lax.scan(jax.checkpoint(layer), x, whole)
    return lax.pmean(jnp.mean(h**2), "data")


with jax.set_mesh(mesh):
    args = jax.device_put((ws, x), (P(None, "data"), P("data")))
grads, temp, texts = {}, {}, {}
print("per device, MiB     arguments outputs   temp | collectives")
for name, f in [
    ("gather per layer", gather_per_layer),
    ("gather all at once", gather_all_at_once),
]:
    specs = dict(in_specs=(P(None, "data"), P("data")), out_specs=P())
    grad = jax.jit(jax.grad(jax.shard_map(f, mesh=mesh, **specs)))
    compiled = grad.lower(*args).compile()
    mem = compiled.memory_analysis()  # per device, in bytes
    grads[name], temp[name] = grad(*args), mem.temp_size_in_bytes
    texts[name] = compiled.as_text()
    print(
        f"{name:18}: {mem.argument_size_in_bytes / 2**20:9.3f}"
        f" {mem.output_size_in_bytes / 2**20:7.3f}"
        f" {mem.temp_size_in_bytes / 2**20:6.3f}"
        f" | {', '.join(collectives(compiled.as_text()))}"
    )
print("gradient:", jax.typeof(grads["gather per layer"]))
for name, text in texts.items():
    print(
        f"{name}: all-gather ->",
        *result_types(text, "all-gather"),
        "| reduce-scatter ->",
        *result_types(text, "reduce-scatter"),
    )
ratio = temp["gather all at once"] / temp["gather per layer"]
print(
    "per-layer gather needs less temp memory:",
    temp["gather per layer"] < temp["gather all at once"],
    f"({ratio:.1f} times less)",
)
print(
    "same gradient:",
    bool(jnp.allclose(*grads.values(), atol=1e-6)),
)
