"""Divides by the raw count: an all-False slice gives 0 / 0 = nan.

Caught by: test_all_false_row_is_exactly_zero, test_axis_argument,
    test_hand_computed
"""

import jax
import jax.numpy as jnp


def masked_mean(x: jax.Array, mask: jax.Array, axis: int = -1) -> jax.Array:
    """x, mask: same shape -> x.shape without axis; 0.0 where all False."""
    total = jnp.sum(jnp.where(mask, x, 0), axis=axis)
    count = jnp.sum(mask, axis=axis)
    # max(count, 1) keeps empty slices at 0 / 1 = 0 and their gradient finite.
    return total / count.astype(x.dtype)
