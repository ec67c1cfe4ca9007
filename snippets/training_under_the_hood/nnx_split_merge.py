"""From NNX to plain pytrees and back: nnx.split, a jax.jit step, nnx.merge."""

import jax
import optax
from flax import nnx

from snippets.training._model import make_data
from snippets.training_under_the_hood._nnx_model import MLP, mse

graphdef, state = nnx.split(MLP(nnx.Rngs(0)))  # static structure, arrays
print("graphdef:", type(graphdef).__name__, "| state:", type(state).__name__)
print("state leaves:", [a.shape for a in jax.tree.leaves(state)])
tx = optax.sgd(0.05, momentum=0.9)


@jax.jit
def step(state, opt_state, x, y):
    """A plain JAX step on the State pytree -> (state, opt_state, loss)."""

    def loss(state):
        """The loss as a function of the arrays alone -> scalar."""
        return mse(nnx.merge(graphdef, state), x, y)

    loss, grads = jax.value_and_grad(loss)(state)
    updates, opt_state = tx.update(grads, opt_state, state)
    return optax.apply_updates(state, updates), opt_state, loss


x, y = make_data(jax.random.split(jax.random.key(0))[0])
opt_state = tx.init(state)
for _ in range(300):
    state, opt_state, loss = step(state, opt_state, x, y)
print(f"step 299  loss {loss:.4f}")

model = nnx.merge(graphdef, state)  # a module again, with the trained arrays
print(f"merged module's loss: {mse(model, x, y):.4f}")
