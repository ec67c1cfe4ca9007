import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

from snippets.sharding._hlo import result_types

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


def reshard_dtypes(jaxpr):
    """The dtypes that the reshard equations of a jaxpr return, nested
    jaxprs (scan, checkpoint) included -> list of str."""
    found = []
    for eqn in jaxpr.eqns:
        if eqn.primitive.name == "reshard":
            found.append(str(eqn.outvars[0].aval.dtype))
        for param in eqn.params.values():
            inner = getattr(param, "jaxpr", param)
            if hasattr(inner, "eqns"):
                found += reshard_dtypes(inner)
    return found


mesh = jax.make_mesh((8,), ("data",))  # Explicit axes
grads = {}
with jax.set_mesh(mesh):
    args = jax.device_put((ws, x), (P(None, "data"), P("data")))
    for gather in (gather_then_cast, cast_then_gather):
        jaxpr = jax.make_jaxpr(loss, static_argnums=2)(*args, gather)
        grad = jax.jit(jax.grad(loss), static_argnums=2)
        text = grad.lower(*args, gather).compile().as_text()
        grads[gather] = grad(*args, gather)
        print(
            f"{gather.__name__}: the jaxpr gathers",
            reshard_dtypes(jaxpr.jaxpr),
        )
        print("  compiled all-gathers:", result_types(text, "all-gather"))
g1, g2 = grads.values()
print(
    "gradient:",
    jax.typeof(g2),
    "| the same both ways:",
    bool((g1 == g2).all()),
)
