# platform: gpu differs -- A GPU compiles its own program and plans its memory its own way, so the memory lines read other KiB
# platform: tpu differs -- A TPU can report 0 bytes of temporaries for a model this small (it does count a large model's), so both memory lines read 0 KiB; what each block keeps for the backward pass and the gradients are the same

import contextlib
import io

import jax
import jax.numpy as jnp
from jax.ad_checkpoint import print_saved_residuals

from practice.performance.remat_mlp_block.solution import (
    deep_mlp,
    mlp_block,
    remat_mlp_block,
)

B, D, H = 8, 16, 48
k1, k2, kx = jax.random.split(jax.random.key(0), 3)
params = {
    "w1": jax.random.normal(k1, (D, H)) / 4,
    "b1": jnp.zeros(H),
    "w2": jax.random.normal(k2, (H, D)) / 7,
    "b2": jnp.zeros(D),
}
x = jax.random.normal(kx, (B, D))


def saved(fn):
    """What the backward pass of sum(fn(params, x)) keeps, without source
    locations."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        print_saved_residuals(lambda p, x: fn(p, x).sum(), params, x)
    return [
        line.split(" from /")[0]
        for line in out.getvalue().splitlines()
        if not line.endswith("from a literal")
    ]


for name, fn in [
    ("plain", mlp_block),
    ("remat", remat_mlp_block),
    ("remat, save pre-activation", lambda p, x: remat_mlp_block(p, x, True)),
]:
    print(f"{name}:")
    for line in saved(fn):
        print("   ", line)

grads = [
    jax.grad(lambda p: jnp.sum(fn(p, x) ** 2))(params)["w1"]
    for fn in (mlp_block, remat_mlp_block)
]
print("same gradients:", bool(jnp.allclose(*grads, atol=1e-6)))

L = 8
stacked = jax.tree.map(lambda a: jnp.stack([a] * L), params)
xb = jnp.zeros((64, D))
for remat in [False, True]:
    grad_fn = jax.jit(jax.grad(lambda sp, x: jnp.sum(deep_mlp(sp, x, remat))))
    temp = (
        grad_fn.lower(stacked, xb)
        .compile()
        .memory_analysis()
        .temp_size_in_bytes
    )
    print(
        f"{L} layers, remat={remat}: compiled temporary memory "
        f"{temp / 1024:.0f} KiB"
    )
