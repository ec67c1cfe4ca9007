import jax
import jax.numpy as jnp


def write_rows(x):
    """Overwrite rows 0-9 one .at[].set at a time. x: (n, d) -> (n, d)."""
    for i in range(10):
        x = x.at[i].set(float(i))
    return x


x = jnp.zeros((1000, 256))  # 1,024,000 bytes
stats = jax.jit(write_rows).lower(x).compile().memory_analysis()
print(
    "argument bytes:",
    stats.argument_size_in_bytes,
    " output bytes:",
    stats.output_size_in_bytes,
)
print("temporary bytes for 10 updates:", stats.temp_size_in_bytes)

pointer = x.unsafe_buffer_pointer()
y = jax.jit(write_rows)(x)
print(
    "without donation: output reuses x's buffer:",
    y.unsafe_buffer_pointer() == pointer,
    " x still usable:",
    not x.is_deleted(),
)
z = jax.jit(write_rows, donate_argnums=0)(x)
print(
    "with donation:    output reuses x's buffer:",
    z.unsafe_buffer_pointer() == pointer,
    " x deleted:",
    x.is_deleted(),
)
