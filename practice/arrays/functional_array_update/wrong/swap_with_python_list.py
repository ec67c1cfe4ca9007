"""Builds the permutation as a Python list (fails for traced i, j).

Caught by: test_swap_rows_traced_indices
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
    order = list(range(x.shape[0]))
    order[i], order[j] = order[j], order[i]
    return x[jnp.array(order)]


def scatter_add(n: int, indices: jax.Array, weights: jax.Array) -> jax.Array:
    """indices, weights: (m,) -> (n,) bin sums; out-of-range ones ignored."""
    # Negative indices would wrap around (as in NumPy); send them to n, which
    # mode="drop" discards.
    safe = jnp.where(indices >= 0, indices, n)
    return jnp.zeros(n, dtype=weights.dtype).at[safe].add(weights, mode="drop")
