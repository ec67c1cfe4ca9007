import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",))
x = jnp.arange(32.0).reshape(16, 2)
xs = jax.device_put(x, NamedSharding(mesh, P("data")))


@jax.jit
def scale(x):
    """Elementwise. x: (n, d) -> (n, d)."""
    return 2.0 * jnp.tanh(x)


@jax.jit
def total(x):
    """Sum of all entries. x: (n, d) -> scalar."""
    return jnp.sum(x)


print("input:   ", jax.typeof(xs))
print("scale(x):", jax.typeof(scale(xs)))
t = total(xs)
print(
    "total(x):",
    jax.typeof(t),
    t,
    "| spec",
    t.sharding.spec,
    "| copies on",
    len(t.sharding.device_set),
    "devices",
)
print("unsharded total:", total(x))
