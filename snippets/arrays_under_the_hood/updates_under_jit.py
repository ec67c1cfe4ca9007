import jax
import jax.numpy as jnp


def write_rows(x):
    """Set row i to i for the first 10 rows. x: (n, d) -> (n, d)."""
    for i in range(10):
        x = x.at[i].set(float(i))
    return x


x = jnp.zeros((1000, 256))
memory = jax.jit(write_rows).lower(x).compile().memory_analysis()
print("x:                     ", memory.argument_size_in_bytes, "bytes")
print("result:                ", memory.output_size_in_bytes, "bytes")
print("scratch for 10 updates:", memory.temp_size_in_bytes, "bytes")
