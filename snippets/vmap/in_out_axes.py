import jax
import jax.numpy as jnp


def normalize(x):
    """Scale ONE vector to unit norm. x: (d,) -> (d,)."""
    return x / jnp.linalg.norm(x)


# (2, 3): three column vectors of length 2
m = jnp.array([[3.0, 0.0, 1.0], [4.0, 2.0, 0.0]])

rows = jax.vmap(normalize)(m)  # in_axes=0: each row
# each column; results stacked on axis 0
cols = jax.vmap(normalize, in_axes=1)(m)
# stack results on axis 1
cols_back = jax.vmap(normalize, in_axes=1, out_axes=1)(m)
print("rows normalized:\n", rows)
print("columns normalized, stacked on axis 0, shape", cols.shape, "\n", cols)
print(
    "columns normalized, out_axes=1, shape", cols_back.shape, "\n", cols_back
)
