"""Functional Array Update.

JAX arrays are immutable: ``x[i] = v`` raises a ``TypeError``. Write three
small updates with the ``x.at[...]`` API, each returning a NEW array and
leaving its input untouched.
"""

import jax
import jax.numpy as jnp


def set_border(x: jax.Array, value) -> jax.Array:
    """Return a copy of ``x`` whose border equals ``value``.

    x: (h, w) with h, w >= 1, any dtype; value: a scalar of a compatible type.
    Returns (h, w), same dtype as ``x``: the first and last row and the first
    and last column are ``value``, every other entry is copied from ``x``.
    ``x`` itself is not modified.
    """
    raise NotImplementedError(
        "set_border: use x.at[...].set(value) on each side of the border"
    )


def swap_rows(x: jax.Array, i, j) -> jax.Array:
    """Return a copy of ``x`` with rows ``i`` and ``j`` exchanged.

    x: (n, ...) any dtype; i, j: integer scalars with 0 <= i, j < n (Python
    ints or int32 arrays, possibly traced under ``jax.jit``). Returns an array
    of the same shape and dtype. ``i == j`` returns the rows unchanged.
    """
    raise NotImplementedError(
        "swap_rows: read both rows from x, then write them with .at[]"
    )


def scatter_add(n: int, indices: jax.Array, weights: jax.Array) -> jax.Array:
    """Sum ``weights`` into ``n`` bins given by ``indices``:

        out[k] = sum(weights[m] for every m with indices[m] == k)

    n: Python int >= 1 (number of bins); indices: (m,) int32; weights: (m,)
    float32 or int32. Returns (n,) in the dtype of weights. Repeated indices
    accumulate (unlike NumPy's ``a[idx] += w``, which keeps only one of the
    repeated writes). Indices
    outside ``[0, n)`` -- negative ones included -- are ignored: they
    contribute to no bin.
    """
    raise NotImplementedError(
        "scatter_add: start from zeros and use .at[...].add(...)"
    )
