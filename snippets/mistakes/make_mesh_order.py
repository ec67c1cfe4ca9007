import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((4, 2), ("data", "model"))
print("platform:", jax.devices()[0].platform)
print("make_mesh device ids:", [d.id for d in mesh.devices.flat])
by_hand = Mesh(np.array(jax.devices()).reshape(4, 2), ("data", "model"))
print(
    "same as reshaping jax.devices():",
    bool((mesh.devices == by_hand.devices).all()),
)
# The two differ in the axis types they default to.
print("make_mesh axis types:", mesh.axis_types)
print("Mesh(...) axis types:", by_hand.axis_types)


def product_on(mesh):
    """a (16, 32) @ b (32, 8) with the inner dimension split over "data" on
    mesh: the result's type, or the name of the error."""
    a = jax.device_put(np.ones((16, 32)), NamedSharding(mesh, P(None, "data")))
    b = jax.device_put(np.ones((32, 8)), NamedSharding(mesh, P("data", None)))
    try:
        return str(jax.typeof(jax.jit(jnp.matmul)(a, b)))
    except Exception as error:  # JAX 0.12 exports no public name for it
        return type(error).__name__


print("a @ b on the Mesh(...) mesh:", product_on(by_hand))
print("a @ b on the make_mesh mesh:", product_on(mesh))
