import equinox as eqx
import jax
import jax.numpy as jnp
import optax

# the same 1 -> 32 -> 1 tanh MLP, as an Equinox module
model = eqx.nn.MLP(
    in_size=1,
    out_size=1,
    width_size=32,
    depth=1,
    activation=jnp.tanh,
    key=jax.random.key(0),
)
leaves = jax.tree.leaves(model)  # the model is a pytree
print("array leaves:", [a.shape for a in leaves if eqx.is_array(a)])
print(
    "other leaves:", [type(f).__name__ for f in leaves if not eqx.is_array(f)]
)


def loss_fn(model, x, y):
    """Mean squared error. x, y: (n, 1) -> ()."""
    return jnp.mean((jax.vmap(model)(x) - y) ** 2)


optimizer = optax.sgd(learning_rate=0.05, momentum=0.9)


@eqx.filter_jit  # jit that treats the non-array leaves as static
def train_step(model, opt_state, x, y):
    loss, grads = eqx.filter_value_and_grad(loss_fn)(model, x, y)
    updates, opt_state = optimizer.update(grads, opt_state, model)
    return eqx.apply_updates(model, updates), opt_state, loss


x = jnp.linspace(-3.0, 3.0, 128)[:, None]
y = jnp.sin(x)
opt_state = optimizer.init(eqx.filter(model, eqx.is_array))
for step in range(501):
    model, opt_state, loss = train_step(model, opt_state, x, y)
    if step % 100 == 0:
        print(f"step {step:3d}  loss {loss:.4f}")
