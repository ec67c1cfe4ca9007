import gc
import tempfile
from pathlib import Path

import jax
import jax.numpy as jnp


def live_mib():
    """MiB held by every live JAX array of this process."""
    return sum(a.nbytes for a in jax.live_arrays()) / 2**20


device = jax.devices()[0]
print("memory_stats() on", device.platform, "->", device.memory_stats())

gc.collect()  # free the garbage of earlier cells first
before = live_mib()
big = jnp.ones((1024, 1024))  # 4 MiB of float32
print(f"live arrays grew by {live_mib() - before:.0f} MiB")
del big
print(f"after del, by {live_mib() - before:.0f} MiB")

big = jnp.ones((1024, 1024))
with tempfile.TemporaryDirectory() as tmp:
    path = Path(tmp) / "memory.prof"
    jax.profiler.save_device_memory_profile(path)
    gzipped = path.read_bytes()[:2] == b"\x1f\x8b"
    print(f"wrote {path.name}, a gzip-compressed pprof profile: {gzipped}")
