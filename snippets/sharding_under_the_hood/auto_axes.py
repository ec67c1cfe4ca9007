import jax
import jax.numpy as jnp
from jax.sharding import AxisType, NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",), axis_types=(AxisType.Auto,))
rows = NamedSharding(mesh, P("data"))
a = jax.device_put(jnp.ones((16, 32)), NamedSharding(mesh, P(None, "data")))
b = jax.device_put(jnp.ones((32, 8)), NamedSharding(mesh, P("data", None)))
print("a:", jax.typeof(a), "| a.sharding.spec:", a.sharding.spec)

c = jax.jit(jnp.matmul)(a, b)  # the compiler picks the result's layout
print("compiler's choice:      ", c.sharding.spec)

c = jax.jit(jnp.matmul, out_shardings=rows)(a, b)
print("with out_shardings:     ", c.sharding.spec)


@jax.jit
def scaled_rows(a, b):
    """a: (n, k), b: (k, m) -> (n, m); the product pinned to a row split."""
    c = jax.lax.with_sharding_constraint(a @ b, rows)
    return 2 * c


print("with_sharding_constraint:", scaled_rows(a, b).sharding.spec)
