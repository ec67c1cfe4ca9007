import equinox as eqx
import jax
import jax.numpy as jnp


def loss(model, x, y):
    """Mean squared error. x: (n, 2), y: (n,) -> scalar."""
    return jnp.mean((jax.vmap(model)(x)[:, 0] - y) ** 2)


@eqx.filter_jit  # traces the arrays, passes everything else as static
def sgd_step(model, x, y):
    """One gradient-descent step on the model's arrays only."""
    grads = eqx.filter_grad(loss)(model, x, y)  # None for non-float leaves
    return eqx.apply_updates(model, jax.tree.map(lambda g: -0.1 * g, grads))


key_model, key_x = jax.random.split(jax.random.key(0))
mlp = eqx.nn.MLP(2, 1, width_size=8, depth=2, key=key_model)
x = jax.random.normal(key_x, (32, 2))
y = x[:, 0] * x[:, 1]

leaves = jax.tree.leaves(mlp)
print("array leaves:", sum(eqx.is_array(leaf) for leaf in leaves))
others = [leaf.__name__ for leaf in leaves if not eqx.is_array(leaf)]
print("other leaves:", others)
try:
    jax.grad(loss)(mlp, x, y)  # the functions are leaves as well
except TypeError as err:
    print("jax.grad on the MLP: TypeError,", str(err).rsplit("'> ", 1)[-1])

params, static = eqx.partition(mlp, eqx.is_array)
print("params leaves:", len(jax.tree.leaves(params)))
print("static leaves:", len(jax.tree.leaves(static)))
print("combine restores it:", eqx.tree_equal(eqx.combine(params, static), mlp))
grads = eqx.filter_grad(loss)(mlp, x, y)
print("filter_grad, activation:", grads.activation)
new = sgd_step(mlp, x, y)
print(f"loss {loss(mlp, x, y):.3f} -> {loss(new, x, y):.3f}")
