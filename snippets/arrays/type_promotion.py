import jax.numpy as jnp


def show(label, result):
    """Print an expression's label, value and dtype."""
    print(f"{label:26s} {str(result):14s} {result.dtype}")


small = jnp.array([100, 20], dtype=jnp.int8)
half = jnp.array([1.5, 2.0], dtype=jnp.bfloat16)

# A Python scalar is weakly typed: the array's dtype wins within one kind
show("int8 + 100", small + 100)  # stays int8, and wraps around
show("bfloat16 * 2.5", half * 2.5)
# Across kinds, a Python float gives the default float dtype
show("int8 + 2.5", small + 2.5)
# A scalar with a dtype of its own promotes like an array
show("int8 + jnp.int32(100)", small + jnp.int32(100))
show("bfloat16 * jnp.float32(2)", half * jnp.float32(2.0))
