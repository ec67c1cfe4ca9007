import jax
import jax.numpy as jnp


def write_rows(x):
    """Set row i to i for the first 10 rows. x: (n, d) -> (n, d)."""
    for i in range(10):
        x = x.at[i].set(float(i))
    return x


x = jnp.zeros((1000, 256))
address = x.unsafe_buffer_pointer()  # where x's data lives on the device

e = x.at[0].set(1.0)  # eager: one update, run on its own
print(
    "eager .at[].set:     result in x's buffer:",
    e.unsafe_buffer_pointer() == address,
    "| x deleted:",
    x.is_deleted(),
)
y = jax.jit(write_rows)(x)
print(
    "jit:                 result in x's buffer:",
    y.unsafe_buffer_pointer() == address,
    "| x deleted:",
    x.is_deleted(),
)

z = jax.jit(write_rows, donate_argnums=0)(x)
print(
    "jit, x donated:      result in x's buffer:",
    z.unsafe_buffer_pointer() == address,
    "| x deleted:",
    x.is_deleted(),
)
