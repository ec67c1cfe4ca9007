import equinox as eqx
import jax
import jax.numpy as jnp


class MLP(eqx.Module):
    """A tanh MLP with one hidden layer. Call: x (2,) -> (1,)."""

    hidden: eqx.nn.Linear
    out: eqx.nn.Linear

    def __init__(self, key):
        key_hidden, key_out = jax.random.split(key)
        self.hidden = eqx.nn.Linear(2, 8, key=key_hidden)
        self.out = eqx.nn.Linear(8, 1, key=key_out)

    def __call__(self, x):
        """x: (2,) -> (1,)."""
        return self.out(jnp.tanh(self.hidden(x)))


def loss(model, x, y):
    """Mean squared error. x: (n, 2), y: (n,) -> scalar."""
    return jnp.mean((jax.vmap(model)(x)[:, 0] - y) ** 2)


@jax.jit
def sgd_step(model, x, y):
    """One gradient-descent step on every array of the model."""
    grads = jax.grad(loss)(model, x, y)
    return jax.tree.map(lambda p, g: p - 0.1 * g, model, grads)


key_model, key_x = jax.random.split(jax.random.key(0))
model = MLP(key_model)
x = jax.random.normal(key_x, (32, 2))
y = x[:, 0] * x[:, 1]

for path, leaf in jax.tree.leaves_with_path(model):
    print(f"{jax.tree_util.keystr(path):14s} {leaf.shape}")
grads = jax.grad(loss)(model, x, y)
same = jax.tree.structure(grads) == jax.tree.structure(model)
print("grads:", type(grads).__name__, "| same structure as model:", same)
new = sgd_step(model, x, y)
print("after one step:", type(new).__name__)
print(f"loss {loss(model, x, y):.3f} -> {loss(new, x, y):.3f}")
