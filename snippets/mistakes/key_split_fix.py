# platform: tpu differs -- A TPU computes the logarithm inside `random.normal` with its own approximation, so the draws differ in the last digits (up to 2e-5) and the printed columns shift with them; the same key still gives the same draws
import jax

jax.config.update("jax_debug_key_reuse", True)

key = jax.random.key(42)
key1, key2 = jax.random.split(key)  # one fresh key per use
w1 = jax.random.normal(key1, (3,))
w2 = jax.random.normal(key2, (3,))
print("layer 1:", w1)
print("layer 2:", w2)
print("identical:", bool((w1 == w2).all()))
