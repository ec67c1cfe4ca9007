# platform: gpu,tpu differs -- XLA compiles the collectives for that backend, so they differ: a GPU (and likely a TPU slice) splits each into a `-start` and a `-done` operation, which `traffic()` does not count

import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import PartitionSpec as P

from snippets.sharding_costs._comm import traffic

B, D, H = 64, 128, 512  # examples, input width, hidden width
mesh = jax.make_mesh((8,), ("x",))


def mlp_loss(w1, w2, x):
    """Mean squared error of an MLP that reconstructs its input.
    w1: (D, H), w2: (H, D), x: (b, D) -> ()."""
    return jnp.mean((jnp.tanh(x @ w1) @ w2 - x) ** 2)


def data_parallel(w1, w2, x):
    """Whole weights, this device's rows of the batch."""
    return lax.pmean(mlp_loss(w1, w2, x), "x")


def fsdp(w1, w2, x):
    """A block of rows of each weight, gathered before use; batch rows."""
    w1, w2 = (lax.all_gather(w, "x", tiled=True) for w in (w1, w2))
    return lax.pmean(mlp_loss(w1, w2, x), "x")


def tensor_parallel(w1, w2, x):
    """w1's columns and w2's rows (hidden units), the whole batch."""
    y = lax.psum(jnp.tanh(x @ w1) @ w2, "x")  # add the partial products
    return jnp.mean((y - x) ** 2)


STRATEGIES = {  # per-device loss, in_specs of (w1, w2, x)
    "data parallel": (data_parallel, (P(), P(), P("x"))),
    "FSDP": (fsdp, (P("x"), P("x"), P("x"))),
    "tensor parallel": (tensor_parallel, (P(None, "x"), P("x"), P())),
}

key1, key2, key3 = jax.random.split(jax.random.key(0), 3)
w1 = jax.random.normal(key1, (D, H)) / D**0.5
w2 = jax.random.normal(key2, (H, D)) / H**0.5
x = jax.random.normal(key3, (B, D))
print(
    f"weights {4 * (w1.size + w2.size) / 2**10:.0f} KiB, "
    f"batch {4 * x.size / 2**10:.0f} KiB (float32)"
)
with jax.set_mesh(mesh):
    for name, (local, specs) in STRATEGIES.items():
        loss = jax.shard_map(local, in_specs=specs, out_specs=P())
        step = jax.jit(  # one SGD step; the gradient is taken outside
            lambda w1, w2, x: jax.tree.map(
                lambda w, g: w - 0.1 * g,
                (w1, w2),
                jax.grad(loss, argnums=(0, 1))(w1, w2, x),
            )
        )
        args = jax.device_put((w1, w2, x), specs)
        rows = traffic(step.lower(*args).compile().as_text())
        print(
            f"{name}: sends {sum(r[3] for r in rows) / 2**10:.0f} KiB "
            "per device per step"
        )
        for op, full, n, sent in rows:
            print(
                f"  {op} of {full / 2**10:.0f} KiB over {n}: "
                f"{sent / 2**10:.0f} KiB"
            )
