# platform: gpu,tpu differs -- This cell names that machine's last device (`cuda:0` on a machine with one GPU)

import jax

# Reusing a key on purpose: turn off the checker the notebooks turn on.
jax.config.update("jax_debug_key_reuse", False)

key = jax.random.key(42)
a = jax.random.uniform(key, (4,))
b = jax.random.uniform(key, (4,))
# a fresh key from the same seed
c = jax.random.uniform(jax.random.key(42), (4,))
print("a:", a)
print("b:", b)
print("c:", c)

# the numbers depend neither on jit nor on the device that draws them
e = jax.jit(lambda k: jax.random.uniform(k, (4,)))(key)
print("under jit:", e, " equal to a:", bool((a == e).all()))
last = jax.devices()[-1]
d = jax.random.uniform(jax.device_put(key, last), (4,))
print(f"on {d.device}:", d, " equal to a:", bool((a == d).all()))
