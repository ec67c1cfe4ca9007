# raises: jax._src.core.ShardingTypeError
# match: Contracting dimensions are sharded
import jax
from jax.sharding import NamedSharding, PartitionSpec as P

from snippets.training._model import init_params, loss_fn, make_data

mesh = jax.make_mesh((8,), ("data",))  # Explicit axes: the default


@jax.jit
def train_step(params, x, y):
    """SGD (learning rate 0.1) on Step 7's MLP -> (new params, loss)."""
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    return jax.tree.map(lambda p, g: p - 0.1 * g, params, grads), loss


params = init_params(jax.random.key(0))  # 1 -> 32 -> 1, never placed
x, y = make_data(jax.random.key(1), 64)
x, y = jax.device_put((x, y), NamedSharding(mesh, P("data")))
print("x:", jax.typeof(x), "| w1:", jax.typeof(params[0]["w"]))
print(f"forward pass alone, loss {jax.jit(loss_fn)(params, x, y):.4f}")

# w's gradient sums over the split batch, and there is no mesh to put it on
train_step(params, x, y)
