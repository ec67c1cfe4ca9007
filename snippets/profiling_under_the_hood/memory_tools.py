import gc
import tempfile
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import NamedSharding, PartitionSpec as P


def held_mib(array):
    """MiB that ``array``'s shards hold on their devices: a copy on each
    device counts once per device."""
    return sum(shard.data.nbytes for shard in array.addressable_shards) / 2**20


def live_mib():
    """MiB held on the devices by the live arrays of the default backend.

    Each buffer counts once: an array's shards are live arrays too, and
    share its buffers.
    """
    buffers = {
        (shard.device, shard.data.unsafe_buffer_pointer()): shard.data.nbytes
        for array in jax.live_arrays()
        for shard in array.addressable_shards
    }
    return sum(buffers.values()) / 2**20


device = jax.devices()[0]
print("memory_stats() on", device.platform, "->", device.memory_stats())

gc.collect()  # free the garbage of earlier cells first
before = live_mib()
big = jnp.ones((1024, 1024))  # 4 MiB of float32
print(f"live arrays grew by {live_mib() - before:.0f} MiB")

mesh = jax.make_mesh((8,), ("x",))
ones = np.ones((1024, 1024), np.float32)
copies = jax.device_put(ones, NamedSharding(mesh, P()))  # one on each device
listed = len(jax.live_arrays())
nbytes, held = copies.nbytes / 2**20, held_mib(copies)
print(f"replicated: nbytes {nbytes:.0f} MiB, its shards hold {held:.0f} MiB")
more = len(jax.live_arrays()) - listed
print(f"reading its shards listed {more} more live arrays")
print(f"live arrays grew by {live_mib() - before:.0f} MiB")
del big, copies
print(f"after del, by {live_mib() - before:.0f} MiB")

big = jnp.ones((1024, 1024))
with tempfile.TemporaryDirectory() as tmp:
    path = Path(tmp) / "memory.prof"
    jax.profiler.save_device_memory_profile(path)
    gzipped = path.read_bytes()[:2] == b"\x1f\x8b"
    print(f"wrote {path.name}, a gzip-compressed pprof profile: {gzipped}")
