import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding

from practice.sharding.kv_cache_sharding.solution import (
    bytes_per_device,
    cache_spec,
)

# keys of a model with 32 layers and 8 KV heads of 128, bfloat16 (the
# values take as much again), for 16 sequences of 4096 tokens
LAYERS, KV_HEADS, HEAD, BATCH, CONTEXT = 32, 8, 128, 16, 4096
shape = (LAYERS, BATCH, CONTEXT, KV_HEADS, HEAD)
for data, model in [(1, 8), (2, 4), (1, 16), (4, 2)]:
    spec = cache_spec(BATCH, CONTEXT, KV_HEADS, data, model)
    mesh = {"data": data, "model": model}
    gib = 2 * bytes_per_device(shape, 2, spec, mesh) / 2**30
    print(f"{data} x {model:2d}: {spec}, keys and values {gib:.2f} GiB")

# a small cache on the 8 devices: 2 KV heads cannot split over 4
spec = cache_spec(batch=4, context=64, kv_heads=2, data=2, model=4)
mesh = jax.make_mesh((2, 4), ("data", "model"))
keys = jax.device_put(jnp.zeros((2, 4, 64, 2, 16)), NamedSharding(mesh, spec))
block = keys.addressable_shards[0].data
print(spec, "device 0 holds", block.shape, f"= {block.nbytes} bytes")
print(
    "bytes_per_device says",
    bytes_per_device(keys.shape, 4, spec, {"data": 2, "model": 4}),
)
