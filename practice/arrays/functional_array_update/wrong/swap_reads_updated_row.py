"""Swaps in two steps, reading row i back after it was overwritten.

Caught by: test_swap_rows_same_index_and_higher_rank,
    test_swap_rows_traced_indices, test_swap_rows_values
"""

import jax
import jax.numpy as jnp


def set_border(x: jax.Array, value) -> jax.Array:
    """x: (h, w) -> (h, w), same dtype, border set to ``value``."""
    return (
        x.at[0, :]
        .set(value)
        .at[-1, :]
        .set(value)
        .at[:, 0]
        .set(value)
        .at[:, -1]
        .set(value)
    )


def swap_rows(x: jax.Array, i, j) -> jax.Array:
    """x: (n, ...) -> (n, ...), rows i and j swapped; i, j may be traced."""
    y = x.at[i].set(x[j])
    return y.at[j].set(y[i])


def scatter_add(n: int, indices: jax.Array, weights: jax.Array) -> jax.Array:
    """indices, weights: (m,) -> (n,) bin sums; out-of-range ones ignored."""
    # Negative indices would wrap around (as in NumPy); send them to n, which
    # mode="drop" discards.
    safe = jnp.where(indices >= 0, indices, n)
    return jnp.zeros(n, dtype=weights.dtype).at[safe].add(weights, mode="drop")
