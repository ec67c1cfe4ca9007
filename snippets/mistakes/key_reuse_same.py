import jax

jax.config.update("jax_debug_key_reuse", False)  # reuse below on purpose

key = jax.random.key(42)
w1 = jax.random.normal(key, (3,))  # "initialise" layer 1
w2 = jax.random.normal(key, (3,))  # layer 2 with the same key
print("layer 1:", w1)
print("layer 2:", w2)
print("identical:", bool((w1 == w2).all()))
