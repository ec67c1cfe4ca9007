"""Bucketed Padding Without Recompiles.

``jax.jit`` compiles once per input shape, so feeding sequences of many
different lengths compiles again and again. Padding every sequence up to one of
a few bucket lengths, with a mask that tells real rows from padding, bounds the
number of compilations by the number of buckets, as long as the computation
ignores the padded rows exactly.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import jax
import jax.numpy as jnp
import numpy as np


def bucket_length(n: int, buckets: Sequence[int]) -> int:
    """The smallest bucket >= n. buckets: positive ints in any order.

    Raises ValueError if n < 1 or n is larger than every bucket.
    """
    raise NotImplementedError("bucket_length: smallest bucket that fits")


def pad_to_bucket(
    x: np.ndarray, buckets: Sequence[int]
) -> tuple[np.ndarray, np.ndarray]:
    """Pad a sequence with zero rows up to its bucket length (on the host, with
    NumPy).

    x: (n, d) array. Returns ``(padded, mask)``: padded (L, d) with the dtype
    of x, rows ``0 .. n-1`` equal to x and the others zero; mask (L,) bool,
    True for the n real rows; L = ``bucket_length(n, buckets)``.
    """
    raise NotImplementedError(
        "pad_to_bucket: np.zeros of the bucket shape, copy x in, build the "
        "mask"
    )


def masked_attention_pool(
    x: jax.Array, mask: jax.Array, w: jax.Array
) -> jax.Array:
    """Attention pooling over the real rows only.

    x: (L, d) float32; mask: (L,) bool with at least one True; w: (d,) float32.
    scores = x @ w; weights = softmax of the scores over the rows where mask is
    True; returns sum_i weights[i] * x[i] over the real rows, shape (d,).
    Padded rows may contain anything, even inf or nan: the result must not
    depend on them. Must work under ``jax.jit`` with a traced mask (no boolean
    indexing).
    """
    raise NotImplementedError(
        "masked_attention_pool: jnp.where(mask, scores, -inf), softmax, "
        "weighted sum"
    )


def bucketed(fn: Callable, buckets: Sequence[int]) -> Callable:
    """Wrap ``fn(padded, mask, *args)`` into ``run(x, *args)`` that compiles at
    most once per bucket.

    ``run`` pads x (n, d) with ``pad_to_bucket`` and calls a jitted ``fn`` on
    the padded array, its mask and the other arguments (which keep the same
    shapes from call to call). Create the jitted function once, in
    ``bucketed``, not at every call.
    """
    raise NotImplementedError("bucketed: jit fn once, pad in the wrapper")
