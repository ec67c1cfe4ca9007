import jax
import jax.numpy as jnp
import optax

from practice.optimizers.sgd_momentum.solution import sgd_momentum

init, update = sgd_momentum(learning_rate=0.1, momentum=0.9)
params = {"w": jnp.array([1.0, 2.0]), "head": {"b": jnp.array(0.5)}}
grads = {"w": jnp.array([1.0, -2.0]), "head": {"b": jnp.array(1.0)}}

state = init(params)
oracle = optax.sgd(0.1, momentum=0.9)
ref_state = oracle.init(params)
# the same gradient three times: the velocity grows 1, 1.9, 2.71
for step in range(3):
    updates, state = update(grads, state, params)
    ref_updates, ref_state = oracle.update(grads, ref_state, params)
    same = all(
        jnp.allclose(a, b)
        for a, b in zip(jax.tree.leaves(updates), jax.tree.leaves(ref_updates))
    )
    print(
        f"step {step}: update of w = {updates['w']}, matches optax.sgd: {same}"
    )
print(
    "velocity has the structure of params:",
    jax.tree.structure(state) == jax.tree.structure(params),
)
