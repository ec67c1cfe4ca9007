# platform: gpu,tpu differs -- This cell names that machine's devices, and its collective takes another time

import time

import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import PartitionSpec as P

from snippets.sharding_costs._hardware import one_way

mesh = jax.make_mesh((8,), ("x",))
print(
    "processes:",
    jax.process_count(),
    "| devices:",
    jax.device_count(),
    jax.devices()[0].platform,
    "| owned by process",
    {d.process_index for d in jax.devices()},
)

# Each device holds 4 MiB; the all-reduce sums the 8 blocks on every device.
allreduce = jax.jit(
    jax.shard_map(
        lambda b: lax.psum(b, "x"),
        mesh=mesh,
        in_specs=P("x"),
        out_specs=P("x"),
    )
)
blocks = jax.device_put(jnp.ones((8, 2**20)), jax.NamedSharding(mesh, P("x")))
allreduce(blocks).block_until_ready()  # compile first
start = time.perf_counter()
allreduce(blocks).block_until_ready()
cpu = time.perf_counter() - start
sent = 2 * 7 / 8 * 4 * 2**20  # bytes each device sends, by the ring formula
print(f"all-reduce of 4 MiB over 8 CPU devices: {cpu * 1e3:.3f} ms")
nvlink = one_way("NVLink 4 (H100, H200)")
print(
    f"the ring formula, {sent / 2**20:.0f} MiB sent at NVLink's"
    f" {nvlink / 1e9:.0f} GB/s one way, in microseconds:"
    f" {sent / nvlink * 1e6:.1f}"
)
