import contextlib
import io

import jax
import jax.numpy as jnp
from jax.ad_checkpoint import print_saved_residuals
from jax.extend.core import ClosedJaxpr, Jaxpr

from snippets.capstone._model import (
    LOGICAL,
    RULES,
    H,
    L,
    S,
    init,
    loss,
    param_specs,
    shardings,
)
from snippets.capstone._train import BATCH, make_mesh

mesh = make_mesh()  # 4 x 2: ("data", "model")
names = jax.tree.leaves(LOGICAL, is_leaf=lambda x: isinstance(x, tuple))
specs = jax.tree.leaves(param_specs())
paths = [
    jax.tree_util.keystr(p, simple=True, separator="/")
    for p, _ in jax.tree.leaves_with_path(
        LOGICAL, is_leaf=lambda x: isinstance(x, tuple)
    )
]
print("rules:", {k: v for k, v in RULES.items() if v})
header = ("parameter", "logical axes", "mesh axes", "device 0's block")
print("{:12} {:35} -> {:33} {}".format(*header))
with jax.set_mesh(mesh):
    params = jax.jit(init, out_shardings=shardings(mesh))(jax.random.key(0))
for path, n, s, a in zip(paths, names, specs, jax.tree.leaves(params)):
    block = a.addressable_shards[0].data.shape  # what device 0 stores
    print(f"{path:12} {', '.join(n):35} -> {str(tuple(s)):33} {block}")
count = sum(a.size for a in jax.tree.leaves(params))
print(f"{count:,} float32 parameters")


def primitives(jaxpr):
    """Names of the primitives of a jaxpr and of the jaxprs inside it."""
    for eqn in jaxpr.eqns:
        yield eqn.primitive.name, eqn
        for sub in eqn.params.values():  # scan's body, checkpoint's, ...
            if isinstance(sub, ClosedJaxpr):
                yield from primitives(sub.jaxpr)
            elif isinstance(sub, Jaxpr):
                yield from primitives(sub)


def policy_name(policy):
    """The first name jax.checkpoint_policies has for ``policy``."""
    names = vars(jax.checkpoint_policies).items()
    return next(name for name, known in names if known is policy)


batch = jnp.zeros((BATCH, 65), jnp.int32)
with jax.set_mesh(mesh):
    jaxpr = jax.make_jaxpr(loss)(params, batch).jaxpr
found = list(primitives(jaxpr))
print(
    "scan over layers:", [e.params["length"] for n, e in found if n == "scan"]
)
print(
    "remat (primitive remat2) with policy:",
    [policy_name(e.params["policy"]) for n, e in found if n == "remat2"],
)
dots = {
    (tuple(str(v.aval.dtype) for v in e.invars), str(e.outvars[0].aval.dtype))
    for n, e in found
    if n == "dot_general"
}
print("products (inputs -> output):", sorted(dots))

# what the backward pass keeps from the forward: one line per residual,
# "<type> output of <op> from <file:line> ..." or "<type> from the argument"
printed = io.StringIO()
with jax.set_mesh(mesh), contextlib.redirect_stdout(printed):
    print_saved_residuals(loss, params, batch)
residuals = printed.getvalue().splitlines()
from_layers = [r.split()[0] for r in residuals if "output of scan" in r]
print("kept from the scanned layers (stacked per layer):", from_layers)
scores = f"[{L},{BATCH},{H},{S},{S}]"  # (layers, b, heads, s, t)
print("attention scores among them:", any(scores in r for r in residuals))
