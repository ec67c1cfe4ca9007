"""Stable Log-Sum-Exp.

``log(sum(exp(x)))`` appears in every softmax, cross-entropy and
log-likelihood. Computed literally it overflows to ``inf`` as soon as an entry
exceeds about 88 in float32. Write the stable version, and ``log_softmax`` on
top of it.
"""

import jax
import jax.numpy as jnp


def logsumexp(
    x: jax.Array,
    axis: int | tuple[int, ...] | None = None,
    keepdims: bool = False,
) -> jax.Array:
    """``log(sum(exp(x), axis))`` without overflow or underflow.

    x: float32 array of any shape. axis: None (reduce over all entries), an int
    or a tuple of ints (negative values count from the end). keepdims: keep
    reduced axes with size 1, as in ``jnp.sum``. Returns float32 with the shape
    ``jnp.sum(x, axis, keepdims=keepdims)`` would have.

    Requirements: ``logsumexp([1000., 1000.]) == 1000 + log 2`` and
    ``logsumexp([-1000., -1000.]) == -1000 + log 2`` (no inf, no -inf, no nan);
    entries equal to -inf contribute nothing, and a slice whose entries are all
    -inf gives -inf (not nan); the gradient (softmax) stays finite for large
    inputs. Must match ``jax.nn.logsumexp``.
    """
    raise NotImplementedError(
        "logsumexp: subtract the maximum before exponentiating"
    )


def log_softmax(x: jax.Array, axis: int = -1) -> jax.Array:
    """Log-probabilities: ``x - logsumexp(x, axis, keepdims=True)``.

    x: float32 array of any shape; axis: an int. Returns the same shape;
    ``exp`` of the result sums to 1 along ``axis``. Must match
    ``jax.nn.log_softmax`` and stay finite for large inputs.
    """
    raise NotImplementedError(
        "log_softmax: reuse logsumexp with keepdims=True"
    )
