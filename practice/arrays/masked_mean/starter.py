"""Masked Mean Without Boolean Indexing.

``x[mask].mean()`` has a shape that depends on the values in ``mask``, so it
cannot run under ``jax.jit``. Compute the mean of the selected entries with
fixed shapes instead.
"""

import jax
import jax.numpy as jnp


def masked_mean(x: jax.Array, mask: jax.Array, axis: int = -1) -> jax.Array:
    """Mean of the entries of ``x`` where ``mask`` is True, along ``axis``.

    x: float array of any shape (float32, bfloat16 or float16 in the tests);
    mask: bool array of the same shape; axis: a Python int (negative values
    count from the end). Returns x's shape with ``axis`` removed, same dtype as
    ``x``. For the last axis:

        out[...] = sum(x[..., k] where mask[..., k]) / count(mask[..., k])

    Defined behaviour for a slice without any True entry: the result is exactly
    0.0 (not NaN), and the gradient of the result with respect to ``x`` is
    finite (zero on that slice). Entries where mask is False do not influence
    the result, even if they are inf or NaN. Must work under ``jax.jit`` with
    ``mask`` traced: no boolean indexing, no Python ``if`` on array values.
    """
    raise NotImplementedError(
        "masked_mean: sum with jnp.where, divide by a safe count"
    )
