# raises: jax.errors.KeyReuseError
import jax

jax.config.update("jax_debug_key_reuse", True)  # check every key is used once

key = jax.random.key(42)
w1 = jax.random.normal(key, (3,))
w2 = jax.random.normal(key, (3,))  # second use of the same key
