"""Pads the interior x[1:-1, 1:-1]: wrong for one-row or one-column x.

Caught by: test_set_border_thin_and_random_shapes
"""

import jax
import jax.numpy as jnp


def set_border(x: jax.Array, value) -> jax.Array:
    """x: (h, w) -> (h, w), same dtype, border set to ``value``."""
    inner = x[1:-1, 1:-1]
    return jnp.pad(inner, 1, constant_values=value).astype(x.dtype)


def swap_rows(x: jax.Array, i, j) -> jax.Array:
    """x: (n, ...) -> (n, ...), rows i and j swapped; i, j may be traced."""
    row_i, row_j = x[i], x[j]
    return x.at[i].set(row_j).at[j].set(row_i)


def scatter_add(n: int, indices: jax.Array, weights: jax.Array) -> jax.Array:
    """indices, weights: (m,) -> (n,) bin sums; out-of-range ones ignored."""
    # Negative indices would wrap around (as in NumPy); send them to n, which
    # mode="drop" discards.
    safe = jnp.where(indices >= 0, indices, n)
    return jnp.zeros(n, dtype=weights.dtype).at[safe].add(weights, mode="drop")
