from functools import partial

import jax
import jax.numpy as jnp
import optax
from jax.sharding import PartitionSpec as P

from snippets.sharding._hlo import result_types, without_layouts

from _mlp import batch, init, init_in_place, loss

mesh = jax.make_mesh((4, 2), ("data", "model"))
tx = optax.adam(1e-2)


@partial(jax.jit, donate_argnums=0)
def train_step(state, x, y):
    """One Adam step. state: (params, opt_state) -> (new state, loss)."""
    params, opt_state = state
    value, grads = jax.value_and_grad(loss)(params, x, y)
    updates, opt_state = tx.update(grads, opt_state, params)
    return (optax.apply_updates(params, updates), opt_state), value


def train(state, x, y, steps):
    """steps Adam steps from state. -> (final state, losses (steps,))."""
    losses = []
    for _ in range(steps):
        state, value = train_step(state, x, y)
        losses.append(value)
    return state, jnp.stack(losses)


x, y = batch(jax.random.key(1), 64)
with jax.set_mesh(mesh):
    params = jax.jit(init_in_place)(jax.random.key(0))
    state = (params, jax.jit(tx.init)(params))
    xs, ys = jax.device_put((x, y), P("data"))
    # eval_shape traces only: shapes and shardings, nothing computed
    grads = jax.eval_shape(jax.grad(loss), params, xs, ys)
    hlo = train_step.lower(state, xs, ys).compile().as_text()
    start = state
    state, losses = train(state, xs, ys, 5)

params, opt_state = state
print("x: ", jax.typeof(xs))
print(
    "w1:",
    jax.typeof(params["w1"]),
    "| its gradient:",
    grads["w1"].sharding.spec,
)
same = jax.tree.map(
    lambda g, p: g.sharding.spec == p.sharding.spec, grads, params
)
print("every gradient laid out like its parameter:", jax.tree.all(same))
print("Adam's first moment of w1:", jax.typeof(opt_state[0].mu["w1"]))
for shapes in result_types(hlo, "all-reduce"):  # the shapes each one sums
    print("all-reduce of", without_layouts(shapes))
print("losses:", " ".join(f"{v:.4f}" for v in losses))
print(
    "old state donated:", all(a.is_deleted() for a in jax.tree.leaves(start))
)

one = (init(jax.random.key(0)), tx.init(init(jax.random.key(0))))
_, one_losses = train(one, x, y, 5)
print("one device, same losses:", bool(jnp.allclose(losses, one_losses)))
