"""Zeroes masked entries by multiplying with a 0/1 float mask (inf * 0 = nan).

Caught by: test_masked_out_inf_and_nan_do_not_leak
"""

import jax
import jax.numpy as jnp


def masked_mean(x: jax.Array, mask: jax.Array, axis: int = -1) -> jax.Array:
    """x, mask: same shape -> x.shape without axis; 0.0 where all False."""
    total = jnp.sum(x * mask.astype(x.dtype), axis=axis)
    count = jnp.sum(mask, axis=axis)
    # max(count, 1) keeps empty slices at 0 / 1 = 0 and their gradient finite.
    return total / jnp.maximum(count, 1).astype(x.dtype)
