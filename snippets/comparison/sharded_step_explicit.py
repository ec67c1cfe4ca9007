# raises: jax._src.core.ShardingTypeError
# match: Contracting dimensions are sharded
import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P


def loss_fn(w, x, y):
    """MSE of a linear model. w: (d,), x: (n, d), y: (n,) -> ()."""
    return jnp.mean((x @ w - y) ** 2)


@jax.jit
def train_step(w, x, y):
    """One SGD step with learning rate 0.1. Returns new w and the loss."""
    loss, g = jax.value_and_grad(loss_fn)(w, x, y)
    return w - 0.1 * g, loss


x = jax.random.normal(jax.random.key(0), (64, 3))
y = x @ jnp.array([2.0, -1.0, 0.5])
w = jnp.zeros(3)  # never placed on the mesh

mesh = jax.make_mesh((8,), ("data",))  # Explicit axes: the default
x_sharded = jax.device_put(x, NamedSharding(mesh, P("data")))
y_sharded = jax.device_put(y, NamedSharding(mesh, P("data")))
train_step(w, x_sharded, y_sharded)  # no jax.set_mesh: w's gradient fails
