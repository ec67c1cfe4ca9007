# platform: gpu,tpu differs -- XLA compiles the collectives for that backend, so they differ: a GPU splits each into a `-start` and a `-done` operation, and need not widen the bfloat16 ones
import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

from snippets.sharding._hlo import partitioned_types, result_types

L, D = 8, 256  # 8 layers of (256, 256) float32 master weights
kw, kx = jax.random.split(jax.random.key(0))
ws = jax.random.normal(kw, (L, D, D)) / 16
x = jax.random.normal(kx, (64, D))


def gather_then_cast(w):
    """This device's rows of one layer, float32 -> the whole layer, bf16."""
    return jax.reshard(w, P()).astype(jnp.bfloat16)


def cast_then_gather(w):
    """The same layer, cast on each device before it travels."""
    return jax.reshard(w.astype(jnp.bfloat16), P())


def loss(ws, x, gather):
    """Per-layer FSDP in bf16. ws: (L, D, D) float32 split over "data" by
    rows, x: (n, D) -> ()."""

    def body(h, w):
        """Gather this layer's weights with `gather`, apply it in bf16."""
        return jnp.tanh(h @ gather(w)), None

    h, _ = jax.lax.scan(jax.checkpoint(body), x.astype(jnp.bfloat16), ws)
    return jnp.mean(h.astype(jnp.float32) ** 2)


def compiled_text(lowered):
    """The program as compiled for this machine's devices -> str."""
    return lowered.compile().as_text()


OP = "all-gather"
mesh = jax.make_mesh((8,), ("data",))  # Explicit axes
grads = {}
with jax.set_mesh(mesh):
    args = jax.device_put((ws, x), (P(None, "data"), P("data")))
    for gather in (gather_then_cast, cast_then_gather):
        grad = jax.jit(jax.grad(loss), static_argnums=2)
        lowered = grad.lower(*args, gather)
        grads[gather] = grad(*args, gather)
        print(f"{gather.__name__}, all-gathers")
        print("  after SPMD partitioning:   ", partitioned_types(lowered, OP))
        print(
            "  compiled for these devices:",
            result_types(compiled_text(lowered), OP),
        )
g1, g2 = grads.values()
print(
    "gradient:",
    jax.typeof(g2),
    "| the same both ways:",
    bool((g1 == g2).all()),
)
