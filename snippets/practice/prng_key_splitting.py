import jax
import jax.numpy as jnp
import numpy as np

from practice.arrays.prng_key_splitting.solution import (
    dropout,
    init_mlp,
    random_walk,
)

jax.config.update("jax_debug_key_reuse", False)  # JAX's default
key = jax.random.key(0)
same = jnp.array_equal(
    jax.random.normal(key, (3,)), jax.random.normal(key, (3,))
)
# and no error by default
print("one key used twice gives the same numbers:", bool(same))

# from here on, any reuse of a key raises
jax.config.update("jax_debug_key_reuse", True)

init_key, drop_key, walk_key = jax.random.split(jax.random.key(0), 3)

params = init_mlp(init_key, (3, 4, 2))
print("layer shapes:", [(w.shape, b.shape) for w, b in params])
print("first layer w:\n", np.asarray(params[0][0]).round(3))

x = jnp.ones((2, 5))
print("dropout(rate=0.4):\n", np.asarray(dropout(drop_key, x, 0.4)).round(3))
print("random walk:", np.asarray(random_walk(walk_key, 6)).round(3))

# drop_key was consumed above; drawing from it again is caught.
try:
    dropout(drop_key, x, 0.4)
except jax.errors.KeyReuseError as err:
    print("reusing drop_key:", type(err).__name__)
