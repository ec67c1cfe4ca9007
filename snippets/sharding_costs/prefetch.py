import collections

import jax
import numpy as np
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",))
rows = NamedSharding(mesh, P("data"))


def loader(steps, log):
    """steps (64, 16) NumPy batches, each noted in log when it is read."""
    rng = np.random.default_rng(0)
    for step in range(steps):
        log.append(f"load {step}")
        yield rng.standard_normal((64, 16), dtype=np.float32)


def prefetch(batches, sharding, size=2):
    """Yield each batch placed with sharding, while the next size - 1
    batches are already on their way: device_put returns at once and
    copies in the background."""
    queue = collections.deque()
    for batch in batches:
        queue.append(jax.device_put(batch, sharding))
        if len(queue) == size:
            yield queue.popleft()
    while queue:
        yield queue.popleft()


@jax.jit
def step_fn(x):
    """A stand-in training step. x: (64, 16) -> ()."""
    return (x**2).mean()


log = []
plain = [step_fn(jax.device_put(b, rows)) for b in loader(4, [])]
for step, x in enumerate(prefetch(loader(4, log), rows)):
    log.append(f"step {step} ({jax.typeof(x)})")
    loss = step_fn(x)
    log.append(
        f"  loss {loss:.4f}, as without prefetching: {loss == plain[step]}"
    )
print("\n".join(log))
