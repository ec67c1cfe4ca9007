import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

from snippets.training._model import init_params, loss_fn, make_data

mesh = jax.make_mesh((8,), ("data",))  # Explicit axes: the default


@jax.jit
def train_step(params, x, y):
    """SGD (learning rate 0.1) on Step 7's MLP -> (new params, loss)."""
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    return jax.tree.map(lambda p, g: p - 0.1 * g, params, grads), loss


params = init_params(jax.random.key(0))
x, y = make_data(jax.random.key(1), 64)
batch = jax.device_put((x, y), NamedSharding(mesh, P("data")))

# fix 1: place the parameters too, a copy on every device
placed = jax.device_put(params, NamedSharding(mesh, P()))
new, loss_placed = train_step(placed, *batch)
print(
    "placed with P():    w1",
    jax.typeof(new[0]["w"]),
    f"loss {loss_placed:.4f}",
)

# fix 2: run under the mesh, which unplaced values then take
with jax.set_mesh(mesh):
    new, loss_mesh = train_step(params, *batch)
print(
    "under jax.set_mesh: w1", jax.typeof(new[0]["w"]), f"loss {loss_mesh:.4f}"
)
_, loss_one = train_step(params, x, y)  # everything on one device
same = jnp.allclose(loss_placed, loss_one) and jnp.allclose(
    loss_mesh, loss_one
)
print("same loss as on one device:", bool(same))
