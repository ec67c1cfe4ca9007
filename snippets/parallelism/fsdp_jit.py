# platform: gpu,tpu differs -- XLA compiles the collectives for that backend, so they differ: a GPU splits each into a `-start` and a `-done` operation
import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

from snippets.sharding._hlo import collectives, result_types

L, D = 8, 256  # 8 layers of (256, 256) float32 weights: 0.25 MiB each
kw, kx, kw1, kw2 = jax.random.split(jax.random.key(0), 4)
ws = jax.random.normal(kw, (L, D, D)) / 16
x = jax.random.normal(kx, (64, D))


def loss(ws, x):
    """FSDP under jit. ws: (L, D, D) split over "data" by rows, x: (n, D)."""

    def body(h, w):
        """Gather this layer's weights (an Explicit reshard), apply it."""
        return jnp.tanh(h @ jax.reshard(w, P())), None

    h, _ = jax.lax.scan(jax.checkpoint(body), x, ws)  # gather again backward
    return jnp.mean(h**2)


def tp_block(h, w):
    """FSDP x TP: w1 (D, H) and w2 (H, D) are split over "data" (FSDP) and
    "model" (TP); gather over "data" only. h: (n, D) -> ((n, D), None)."""
    w1 = jax.reshard(w["w1"], P(None, "model"))  # columns stay split
    w2 = jax.reshard(w["w2"], P("model", None))  # rows stay split
    u = jnp.tanh(h @ w1)
    return h + jnp.matmul(u, w2, out_sharding=P("data", None)), None


def loss_2d(w, x):
    """Residual MLP blocks scanned over L layers -> ()."""
    h, _ = jax.lax.scan(jax.checkpoint(tp_block), x, w)
    return jnp.mean(h**2)


def reference(ws, x, residual=False):
    """The same losses on one device, no layouts. -> ()."""
    h = x
    for i in range(L):
        if residual:
            h = h + jnp.tanh(h @ ws["w1"][i]) @ ws["w2"][i]
        else:
            h = jnp.tanh(h @ ws[i])
    return jnp.mean(h**2)


mesh = jax.make_mesh((8,), ("data",))  # Explicit axes
with jax.set_mesh(mesh):
    args = jax.device_put((ws, x), (P(None, "data"), P("data")))
    grad = jax.jit(jax.grad(loss))
    compiled = grad.lower(*args).compile()
    g = grad(*args)
text = compiled.as_text()
print("weights:", jax.typeof(args[0]), "| gradient:", jax.typeof(g))
print("collectives:", collectives(text))
print("split into start and done:", "all-gather-start" in text)
print("all-gather results:", *result_types(text, "all-gather"))
print("all-reduce results:", *result_types(text, "all-reduce"))
temp = compiled.memory_analysis().temp_size_in_bytes
layer = D * D * 4  # one layer's float32 weights, bytes
print(
    f"temp per device: {temp / 2**20:.2f} MiB"
    f" (one layer's weights: {layer / 2**20:.2f} MiB,"
    f" all: {L * layer / 2**20:.2f})"
)
print(
    "gradient equals one device's:",
    bool(jnp.allclose(g, jax.grad(reference)(ws, x), rtol=1e-5, atol=1e-7)),
)

mesh2 = jax.make_mesh((4, 2), ("data", "model"))
w = {
    "w1": jax.random.normal(kw1, (L, D, D)) / 16,
    "w2": jax.random.normal(kw2, (L, D, D)) / 16,
}
with jax.set_mesh(mesh2):
    w2d = jax.device_put(
        w, {"w1": P(None, "data", "model"), "w2": P(None, "model", "data")}
    )
    x2d = jax.device_put(x, P("data"))
    grad2 = jax.jit(jax.grad(loss_2d))
    text2 = grad2.lower(w2d, x2d).compile().as_text()
    g2 = grad2(w2d, x2d)
print(
    "FSDP x TP w1:",
    jax.typeof(w2d["w1"]),
    "block",
    w2d["w1"].addressable_shards[0].data.shape,
    "| gradient:",
    jax.typeof(g2["w1"]),
)
print("all-gather results:", *sorted(set(result_types(text2, "all-gather"))))
print(
    "gradient equals one device's:",
    jax.tree.all(
        jax.tree.map(
            lambda a, b: jnp.allclose(a, b, rtol=1e-5, atol=1e-7),
            g2,
            jax.grad(reference)(w, x, True),
        )
    ),
)
