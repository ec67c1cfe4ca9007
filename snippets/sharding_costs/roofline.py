# platform: gpu differs -- `cost_analysis` counts the program XLA compiled for that GPU (on an H200, the line for m = 64 differs)
# platform: tpu differs -- `cost_analysis` counts the program XLA compiled for the TPU: on a TPU v5e it counts more bytes than 2(mk+kn+mn) (134 to 512 MiB where the formula gives 130 to 256), so every bytes check prints False there. The FLOP counts are the same
import jax
import jax.numpy as jnp

from snippets.sharding_costs._hardware import CHIPS

CHIPS_SHOWN = ("H100 SXM", "TPU v5e", "TPU v5p")
critical = {}  # FLOPs per byte at which compute and memory take as long
for chip in CHIPS_SHOWN:
    peak, hbm, _ = CHIPS[chip]
    critical[chip] = peak / hbm
    print(
        f"{chip}: {peak / 1e12:.0f} TFLOP/s bf16 dense, "
        f"{hbm / 1e12:.2f} TB/s HBM -> critical intensity "
        f"{critical[chip]:.0f} FLOPs/byte"
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
    reachable = ", ".join(
        f"{chip} {min(1.0, intensity / critical[chip]):4.0%}"
        for chip in CHIPS_SHOWN
    )
    print(
        f"m={m:5}: {flops / 1e9:6.1f} GFLOP = 2mkn: {flops == 2 * m * d * d}, "
        f"{nbytes / 2**20:5.0f} MiB = 2(mk+kn+mn): "
        f"{nbytes == 2 * (m * d + d * d + m * d)}, "
        f"{intensity:6.1f} FLOPs/byte; at most this share of peak: "
        f"{reachable}"
    )
