# platform: gpu,tpu differs -- XLA compiles the collectives for that backend, so they differ: a GPU (and likely a TPU slice) splits each into a `-start` and a `-done` operation
import re

import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((8,), ("model",))
k1, k2, kx = jax.random.split(jax.random.key(0), 3)
w1 = jax.random.normal(k1, (16, 64)) / 4.0  # split by columns
w2 = jax.random.normal(k2, (64, 16)) / 8.0  # split by rows
x = jax.random.normal(kx, (4, 16))  # whole on every device


def loss(w1_cols, w2_rows, x):
    """A tensor-parallel MLP block, per device. x: (batch, d) -> ()."""
    y = lax.psum(jnp.tanh(x @ w1_cols) @ w2_rows, "model")
    return jnp.sum(y**2)


def all_reduces_behind(program):
    """For each output of an HLO module's entry computation, how many
    all-reduces it depends on, directly or through other values."""
    entry = program[program.index("ENTRY") :]
    operands, counts = {}, {}
    for line in entry.splitlines():
        match = re.match(
            r"\s*(?:ROOT )?(%?[\w.-]+) = .*?(\w[\w-]*)\((.*)", line
        )
        if not match:
            continue
        name, op, rest = match.groups()
        args = re.findall(r"%?[\w.-]+", rest.split(")")[0])
        deps = set().union(*(operands.get(a, set()) for a in args))
        if op == "all-reduce":
            deps = deps | {name}
        operands[name] = deps
        if line.lstrip().startswith("ROOT"):
            counts = [len(operands.get(a, set())) for a in args]
    return counts


tp_loss = jax.shard_map(
    loss,
    mesh=mesh,
    in_specs=(P(None, "model"), P("model"), P()),
    out_specs=P(),
)
grads = jax.jit(jax.grad(tp_loss, argnums=(0, 1, 2)))
with jax.set_mesh(mesh):
    args = jax.device_put((w1, w2, x), (P(None, "model"), P("model"), P()))
    program = grads.lower(*args).compile().as_text()
print("all-reduces in the program:", program.count(" all-reduce("))
for name, count in zip(("d w1", "d w2", "d x"), all_reduces_behind(program)):
    print(f"{name} depends on {count} all-reduce(s)")
