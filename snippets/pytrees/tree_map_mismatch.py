# raises: ValueError
# match: pytree structure error
import jax
import jax.numpy as jnp

params = {"layers": [{"w": jnp.ones(3)}, {"w": jnp.ones(3)}]}
grads = {"layers": [{"w": jnp.ones(3)}]}  # one layer short

jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)
