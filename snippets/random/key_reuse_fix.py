# platform: tpu differs -- A TPU computes the logarithm inside `random.normal` with its own approximation, so the draws differ in the last digits (up to 2e-5) and the printed columns shift with them; the same key still gives the same draws
import jax

jax.config.update("jax_debug_key_reuse", True)

key = jax.random.key(0)
key, sub = jax.random.split(key)  # split consumes key and returns fresh ones
noise_1 = jax.random.normal(sub, (3,))
key, sub = jax.random.split(key)
noise_2 = jax.random.normal(sub, (3,))
print("noise 1:", noise_1)
print("noise 2:", noise_2)
