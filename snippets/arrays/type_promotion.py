import jax.numpy as jnp
import numpy as np


def show(label, result):
    """Print an expression's label, value and dtype."""
    print(f"{label:26s} {str(result):10s} {result.dtype}")


small = jnp.array([100, 20], dtype=jnp.int8)
half = jnp.array([1.5, 2.0], dtype=jnp.bfloat16)

# A Python scalar is weakly typed: the array's dtype wins
show("int8 + 100", small + 100)  # stays int8, and wraps around
show("bfloat16 * 2.5", half * 2.5)
# A scalar with a dtype of its own promotes like an array
show("int8 + jnp.int32(100)", small + jnp.int32(100))
show("bfloat16 * jnp.float32(2)", half * jnp.float32(2.0))
print("weak_type:", jnp.asarray(2.5).weak_type, jnp.float32(2.5).weak_type)

pairs = [("int8", "uint8"), ("int32", "float16"), ("int32", "float32")]
for a, b in pairs:
    jax_type, numpy_type = jnp.promote_types(a, b), np.promote_types(a, b)
    print(f"promote {a}, {b}: JAX {jax_type}, NumPy {numpy_type}")
print(
    "promote bfloat16, float16: JAX", jnp.promote_types("bfloat16", "float16")
)
