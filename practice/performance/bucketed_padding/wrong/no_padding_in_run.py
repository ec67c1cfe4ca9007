"""Call the jitted function on x unpadded: one compilation per length.

Caught by: test_at_most_one_compile_per_bucket
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import jax
import jax.numpy as jnp
import numpy as np


def bucket_length(n: int, buckets: Sequence[int]) -> int:
    """Smallest bucket that holds n rows."""
    fitting = [b for b in buckets if b >= n]
    if n < 1 or not fitting:
        raise ValueError(
            f"no bucket in {sorted(buckets)} for a sequence of length {n}"
        )
    return min(fitting)


def pad_to_bucket(
    x: np.ndarray, buckets: Sequence[int]
) -> tuple[np.ndarray, np.ndarray]:
    """x (n, d) -> padded (L, d), mask (L,) bool with L the bucket of n."""
    x = np.asarray(x)
    n = x.shape[0]
    length = bucket_length(n, buckets)
    padded = np.zeros((length,) + x.shape[1:], dtype=x.dtype)
    padded[:n] = x
    mask = np.arange(length) < n
    return padded, mask


def masked_attention_pool(
    x: jax.Array, mask: jax.Array, w: jax.Array
) -> jax.Array:
    """x (L, d), mask (L,), w (d,) -> (d,): softmax(x @ w) over the real rows,
    weighted sum of rows."""
    scores = jnp.where(mask, x @ w, -jnp.inf)
    weights = jax.nn.softmax(scores)  # exactly 0 where mask is False
    return weights @ jnp.where(mask[:, None], x, 0.0)


def bucketed(fn: Callable, buckets: Sequence[int]) -> Callable:
    """run(x, *args) = jit(fn)(padded x, mask, *args): one compilation per
    bucket used."""
    compiled = jax.jit(fn)

    def run(x, *args):
        mask = np.ones(x.shape[0], bool)  # every row is real
        return compiled(x, mask, *args)

    return run
