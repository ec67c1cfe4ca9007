import re

import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",))
kx, kw = jax.random.split(jax.random.key(0))
x = jax.device_put(
    jax.random.normal(kx, (64, 16)), NamedSharding(mesh, P("data"))
)
y = jax.device_put(jnp.ones(64), NamedSharding(mesh, P("data")))
# a copy of w on every device
w = jax.device_put(jax.random.normal(kw, (16,)), NamedSharding(mesh, P()))


def predict(w, x):
    """Linear model. w: (d,), x: (n, d) -> (n,)."""
    return x @ w


def loss(w, x, y):
    """Mean squared error. w: (d,), x: (n, d), y: (n,) -> scalar."""
    return jnp.mean((predict(w, x) - y) ** 2)


for name, fn, args in [
    ("predict", predict, (w, x)),
    ("loss", loss, (w, x, y)),
    ("grad(loss)", jax.grad(loss), (w, x, y)),
]:
    program = jax.jit(fn).lower(*args).compile().as_text()
    # a collective's line reads "name = f32[16]{0} all-reduce(...)" (on a GPU,
    # all-reduce-start): keep its result type, without the layout {0}, and op
    found = re.findall(
        r"= (\S+?)(?:\{[^}]*\})? (all-reduce|all-gather|reduce-scatter"
        r"|collective-permute|all-to-all)(?:-start)?\(",
        program,
    )
    ops = [f"{op} of {result}" for result, op in found]
    print(f"{name}: {len(ops)} collective op(s)", *ops, sep="\n    ")
