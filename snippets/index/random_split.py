# platform: tpu differs -- A TPU computes the logarithm inside `random.normal` with its own approximation, so the draws differ in the last digits (up to 2e-5) and the printed columns shift with them; the same key still gives the same draws
import jax

# the same key always gives the same numbers
print("key(0):      ", jax.random.normal(jax.random.key(0), (3,)))
print("key(0) again:", jax.random.normal(jax.random.key(0), (3,)))

# so split off a fresh subkey for each draw, and keep `key` for later splits
key = jax.random.key(0)
key, sub = jax.random.split(key)
print("a subkey:    ", jax.random.normal(sub, (3,)))
key, sub = jax.random.split(key)
print("the next one:", jax.random.normal(sub, (3,)))
