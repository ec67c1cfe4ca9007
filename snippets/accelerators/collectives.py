# platform: gpu differs -- XLA's GPU compiler splits each collective into a `-start` and a `-done` operation
import re

import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",))
x = jax.device_put(jnp.ones((8, 1024)), NamedSharding(mesh, P("data")))


@jax.jit
def total(x):
    """Sum of a row-sharded x: (8, 1024) -> (1024,), on every device."""
    return x.sum(axis=0)


compiled = total.lower(x).compile().as_text()
kinds = r"(all-reduce|all-gather|reduce-scatter|collective-permute|all-to-all)"
found = re.findall(rf"= \S+ ({kinds}(?:-start|-done)?)\(", compiled)
print(f"collectives in the compiled program on this {jax.default_backend()}:")
print(" ", [name for name, _ in found])
