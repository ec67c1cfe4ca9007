# raises: ValueError
# match: requires the current value of parameters
import jax.numpy as jnp
import optax

params = {"w": jnp.ones(3)}
grads = {"w": jnp.full(3, 0.1)}
optimizer = optax.adamw(learning_rate=0.01, weight_decay=1e-4)
state = optimizer.init(params)

# params not passed: weight decay has nothing to decay
optimizer.update(grads, state)
