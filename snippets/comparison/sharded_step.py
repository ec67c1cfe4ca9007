import jax
import jax.numpy as jnp
from jax.sharding import AxisType, NamedSharding, PartitionSpec as P


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
w = jnp.zeros(3)

# 8 devices in a row; Auto lets the compiler decide how to combine the pieces
mesh = jax.make_mesh((8,), ("data",), axis_types=(AxisType.Auto,))
# 8 rows per device
x_sharded = jax.device_put(x, NamedSharding(mesh, P("data")))
y_sharded = jax.device_put(y, NamedSharding(mesh, P("data")))
print(
    "rows of x per device:",
    [s.data.shape[0] for s in x_sharded.addressable_shards],
)

w_one, loss_one = train_step(w, x, y)  # everything on one device
# same code, batch split 8 ways
w_many, loss_many = train_step(w, x_sharded, y_sharded)
print(
    "same loss:",
    jnp.allclose(loss_one, loss_many),
    " same update:",
    jnp.allclose(w_one, w_many),
)
