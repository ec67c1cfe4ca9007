"""Uses jnp.mean(x, where=mask): an all-False slice gives nan, not 0.

Caught by: test_all_false_row_is_exactly_zero, test_axis_argument,
    test_hand_computed
"""

import jax
import jax.numpy as jnp


def masked_mean(x: jax.Array, mask: jax.Array, axis: int = -1) -> jax.Array:
    """x, mask: same shape -> x.shape without axis; 0.0 where all False."""
    return jnp.mean(x, axis=axis, where=mask)
