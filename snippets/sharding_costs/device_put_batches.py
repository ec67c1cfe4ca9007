import jax
import numpy as np
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",))
rows = NamedSharding(mesh, P("data"))  # split the batch dimension


def numpy_batches(steps, batch=64, width=16, seed=0):
    """steps batches from a NumPy generator, as a data loader yields them.
    -> iterator of (batch, width) float32 arrays in host memory."""
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        yield rng.standard_normal((batch, width), dtype=np.float32)


for step, host in enumerate(numpy_batches(2)):
    x = jax.device_put(host, rows)  # each device receives its 8 rows
    print(
        f"step {step}: {type(host).__name__} {host.shape} ->",
        jax.typeof(x),
        "| device 0 holds",
        x.addressable_shards[0].data.shape,
        "| same values:",
        np.array_equal(np.asarray(x), host),
    )
