import jax.numpy as jnp
import optax

from practice.optimizers.global_norm_clipping.solution import (
    clip_by_global_norm,
    global_norm,
)

grads = {"w": jnp.array([[3.0, 0.0]]), "b": jnp.array([4.0])}  # global norm 5
print("global norm:", global_norm(grads))

init, update = clip_by_global_norm(max_norm=1.0)
clipped, state = update(grads, init(grads))
print("clipped w:", clipped["w"], " clipped b:", clipped["b"])
print("norm after clipping:", global_norm(clipped))

expected, _ = optax.clip_by_global_norm(1.0).update(grads, ())
print(
    "matches optax.clip_by_global_norm:",
    all(jnp.allclose(clipped[name], expected[name]) for name in grads),
)

# norm 0.5: left alone
small = {"w": jnp.array([[0.3, 0.0]]), "b": jnp.array([0.4])}
print("small gradient unchanged:", update(small, state)[0]["b"])
