# platform: gpu,tpu differs -- cost_analysis counts the program XLA compiled for the device (an H200's line for m = 64 differs)
import jax
import jax.numpy as jnp

from snippets.sharding_costs._hardware import CHIPS

CHIP = "H100 SXM"
peak, hbm, _ = CHIPS[CHIP]
critical = peak / hbm  # FLOPs per byte at which both take the same time
print(
    f"{CHIP}: {peak / 1e12:.0f} TFLOP/s bf16 dense, {hbm / 1e12:.2f} TB/s "
    f"HBM -> critical intensity {critical:.0f} FLOPs/byte"
)


def matmul_cost(m, k, n):
    """FLOPs and bytes accessed of (m, k) @ (k, n) in bf16, as XLA counts
    them for the compiled program (nothing is allocated or run)."""
    a = jax.ShapeDtypeStruct((m, k), jnp.bfloat16)
    b = jax.ShapeDtypeStruct((k, n), jnp.bfloat16)
    cost = jax.jit(jnp.matmul).lower(a, b).compile().cost_analysis()
    return cost["flops"], cost["bytes accessed"]


d = 8192  # a (d, d) weight matrix, applied to m tokens
for m in (64, 256, 1024, 4096):
    flops, nbytes = matmul_cost(m, d, d)
    intensity = flops / nbytes
    bound = "compute" if intensity > critical else "memory"
    attainable = min(1.0, intensity / critical)
    print(
        f"m={m:5}: {flops / 1e9:6.1f} GFLOP = 2mkn: {flops == 2 * m * d * d}, "
        f"{nbytes / 2**20:5.0f} MiB = 2(mk+kn+mn): "
        f"{nbytes == 2 * (m * d + d * d + m * d)}, "
        f"{intensity:6.1f} FLOPs/byte, {bound}-bound, "
        f"at most {attainable:.0%} of peak"
    )
