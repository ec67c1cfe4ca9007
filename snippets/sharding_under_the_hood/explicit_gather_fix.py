import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",))  # Explicit axes: the default
table = jax.random.normal(jax.random.key(0), (32, 16))
ids = jnp.arange(64) % 32


def embed(table, ids):
    """Rows of table (V, d) for ids (n,) split over "data" -> (n, d)."""
    return table.at[ids].get(out_sharding=P("data"))


# The same lookup with the axes Auto for this one function: the compiler
# chooses the layout inside, and the result gets the stated type.
embed_auto = jax.sharding.auto_axes(lambda t, i: t[i], out_sharding=P("data"))


def total(table, ids):
    """A scalar loss through the lookup -> ()."""
    return jnp.sum(embed(table, ids) ** 2)


with jax.set_mesh(mesh):
    table_p = jax.device_put(table, P())  # placed on the mesh, copied
    ids_p = jax.device_put(ids, P("data"))
    rows = jax.jit(embed)(table_p, ids_p)
    rows_auto = jax.jit(embed_auto)(table_p, ids_p)
    grad = jax.jit(jax.grad(total))(table_p, ids_p)
print(".at[ids].get:", jax.typeof(rows), "| auto_axes:", jax.typeof(rows_auto))
print(
    "both equal table[ids]:",
    bool(jnp.array_equal(rows, table[ids])),
    bool(jnp.array_equal(rows_auto, table[ids])),
)
print(
    "gradient:",
    jax.typeof(grad),
    "equal to one device's:",
    bool(jnp.allclose(grad, jax.grad(lambda t: jnp.sum(t[ids] ** 2))(table))),
)

# The converse on an Auto mesh: explicit_axes types the values inside f.
auto_mesh = jax.make_mesh(
    (8,), ("data",), axis_types=(jax.sharding.AxisType.Auto,)
)


def double(x):
    """x: (n, d) -> 2x, printing x's type while tracing."""
    print("inside explicit_axes:", jax.typeof(x))
    return 2 * x


with jax.set_mesh(auto_mesh):
    x = jax.device_put(jnp.ones((64, 16)), P("data"))
    y = jax.jit(jax.sharding.explicit_axes(double, in_sharding=P("data")))(x)
print("outside, Auto axes:", jax.typeof(y), y.sharding.spec)
