import jax

jax.config.update("jax_debug_key_reuse", False)  # reuse below on purpose

key = jax.random.key(0)
key, sub = jax.random.split(key)  # use `sub` now, keep `key` for later splits
print("draw:       ", jax.random.normal(sub, (3,)))
print("same key:   ", jax.random.normal(sub, (3,)))  # same key, same numbers
key, sub = jax.random.split(key)
print("fresh split:", jax.random.normal(sub, (3,)))
