# platform: tpu rtol=2e-5 -- A TPU computes the logarithm inside `random.normal` with its own approximation, so the draws differ in the last digits (up to 6e-6); the key's bits are the same, so these are the same draws
import jax

key = jax.random.key(0)  # a typed key: a scalar of a special key dtype
print("typed key:  shape", key.shape, " dtype", key.dtype)
print("its raw bits:", jax.random.key_data(key))

# legacy: a plain uint32 array holding the same bits
old = jax.random.PRNGKey(0)
print("legacy key: shape", old.shape, " dtype", old.dtype, " value", old)

print(
    "same draws:", jax.random.normal(key, (3,)), jax.random.normal(old, (3,))
)
print("wrap legacy -> typed:", jax.random.wrap_key_data(old).dtype)
