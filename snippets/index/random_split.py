# platform: tpu differs -- A TPU computes the logarithm inside `random.normal` with its own approximation, so the draws differ in the last digits (up to 2e-5) and the printed columns shift with them; the same key still gives the same draws
import jax

key = jax.random.key(0)
key, sub = jax.random.split(key)  # use `sub` now, keep `key` for later splits
print("draw:       ", jax.random.normal(sub, (3,)))
# the same key gives the same numbers: rebuild that first `sub` (the second
# key that split(key(0)) returns) from seed 0, and draw again
_, same = jax.random.split(jax.random.key(0))
print("same key:   ", jax.random.normal(same, (3,)))
key, sub = jax.random.split(key)
print("fresh split:", jax.random.normal(sub, (3,)))
