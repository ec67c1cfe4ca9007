import jax.numpy as jnp
import optax
from flax import nnx

from snippets.training_under_the_hood._nnx_model import MLP, mse

model = MLP(nnx.Rngs(0))  # Step 7's 1 -> 32 -> 1 tanh MLP, as an NNX module
optimizer = nnx.Optimizer(model, optax.sgd(0.05, momentum=0.9), wrt=nnx.Param)


@nnx.jit  # carries the in-place changes out of the compiled step
def train_step(model, optimizer, x, y):
    loss, grads = nnx.value_and_grad(mse)(model, x, y)
    updates = optimizer.update(
        model, grads
    )  # writes into model, returns updates
    return loss, updates


x = jnp.linspace(-3.0, 3.0, 128)[:, None]
y = jnp.sin(x)
for step in range(501):
    loss, updates = train_step(model, optimizer, x, y)  # nothing rebound
    if step % 100 == 0:
        print(f"step {step:3d}  loss {loss:.4f}")
print("update returned the updates, a", type(updates).__name__)
