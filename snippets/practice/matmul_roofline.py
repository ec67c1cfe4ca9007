import jax
import jax.numpy as jnp

from practice.sharding.matmul_roofline.solution import (
    matmul_cost,
    min_compute_bound_rows,
    roofline_seconds,
)
from snippets.sharding_costs._hardware import CHIPS

peak, bandwidth, _ = (int(x) for x in CHIPS["H100 SXM"])  # FLOP/s, B/s
weight = jax.ShapeDtypeStruct((8192, 8192), jnp.bfloat16)  # nothing allocated
m_min = min_compute_bound_rows(8192, 8192, 2, peak, bandwidth)
print("H100 SXM, bf16 (m, 8192) @ (8192, 8192): compute-bound from m =", m_min)
for m in (1, m_min - 1, m_min, 4096):
    flops, nbytes = matmul_cost(
        jax.ShapeDtypeStruct((m, 8192), jnp.bfloat16), weight
    )
    seconds = roofline_seconds(flops, nbytes, peak, bandwidth)
    bound = "compute" if flops / peak >= nbytes / bandwidth else "memory"
    print(
        f"m={m:5d}: {flops:>15,} FLOPs {nbytes:>11,} bytes, "
        f"at least {seconds * 1e6:6.2f} microseconds, {bound}-bound"
    )
