import jax.numpy as jnp
import numpy as np

print("weak_type:", jnp.asarray(2.5).weak_type, jnp.float32(2.5).weak_type)

pairs = [("int8", "uint8"), ("int32", "float16"), ("int32", "float32")]
for a, b in pairs:
    jax_type, numpy_type = jnp.promote_types(a, b), np.promote_types(a, b)
    print(f"promote {a}, {b}: JAX {jax_type}, NumPy {numpy_type}")
print(
    "promote bfloat16, float16: JAX", jnp.promote_types("bfloat16", "float16")
)
