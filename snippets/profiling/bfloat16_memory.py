import jax
import jax.numpy as jnp

from _mlp import init_mlp


def nbytes(tree):
    """Total bytes of all array leaves."""
    return sum(leaf.nbytes for leaf in jax.tree.leaves(tree))


params = init_mlp(jax.random.key(0), [1024] * 5)  # 4 layers of 1024 x 1024
params_bf16 = jax.tree.map(lambda p: p.astype(jnp.bfloat16), params)

print(f"float32:  {nbytes(params) / 2**20:.0f} MiB")
print(f"bfloat16: {nbytes(params_bf16) / 2**20:.0f} MiB")
print()
print(
    f"{'dtype':9} {'bytes':>5} {'eps':>9} {'smallest normal':>16} {'max':>10}"
)
for dtype in (jnp.float32, jnp.bfloat16, jnp.float16):
    fi = jnp.finfo(dtype)
    print(
        f"{fi.dtype.name:9} {fi.bits // 8:5d} {float(fi.eps):9.2g} "
        f"{float(fi.smallest_normal):16.2g} {float(fi.max):10.5g}"
    )
