# raises: jax.errors.KeyReuseError
import jax

jax.config.update("jax_debug_key_reuse", True)  # off by default

key = jax.random.key(0)
noise_1 = jax.random.normal(key, (3,))
noise_2 = jax.random.normal(key, (3,))  # the second use of the same key
