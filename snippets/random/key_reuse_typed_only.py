# platform: tpu differs -- A TPU computes the logarithm inside `random.normal` with its own approximation, so the draws differ in the last digits (up to 2e-5) and the printed columns shift with them; the same key still gives the same draws
import jax

jax.config.update("jax_debug_key_reuse", True)

legacy = jax.random.PRNGKey(0)  # a uint32 array: the checker cannot see it
print(
    "legacy key, twice:",
    jax.random.normal(legacy, (2,)),
    jax.random.normal(legacy, (2,)),
)

key = jax.random.key(0)
a = jax.random.normal(key, (2,))
b = jax.random.normal(jax.random.clone(key), (2,))  # a declared second use
print("typed key, clone: ", a, b)
