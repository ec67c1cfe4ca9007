"""Static Arguments in jit.

Some arguments decide the *structure* of the computation rather than flowing
through it: a polynomial degree fixes an output shape, a mode string picks a
branch of Python code. Under ``jax.jit`` such arguments must be static: they
are part of the cache key, so each new value compiles a new version, while new
array values of the same shape reuse the compiled one.

Both public functions below must be the jitted functions themselves (the
objects returned by ``jax.jit``, for example via a decorator), with the named
argument declared static.
"""

import jax
import jax.numpy as jnp


def poly_features(x: jax.Array, degree: int) -> jax.Array:
    """Polynomial features ``[1, x, x**2, ..., x**degree]`` of every entry.

    x: (n,) float32; degree: Python int >= 0, STATIC. Returns (n, degree + 1)
    float32 with ``out[i, k] = x[i] ** k`` (so column 0 is all ones, also where
    x is 0), like ``np.vander(x, degree + 1, increasing=True)``. Calls with
    new values of x (same shape, same degree) must not retrace; every new
    degree traces once. It must accept ``degree`` positionally and as a
    keyword.
    """
    raise NotImplementedError(
        "poly_features: jit it with degree static; build the powers with jnp"
    )


def normalize_rows(x: jax.Array, kind: str) -> jax.Array:
    """Divide every row of ``x`` by its norm; ``kind`` (STATIC) picks the norm.

    x: (n, d) float32; kind: "l1" (sum of absolute values), "l2" (Euclidean) or
    "max" (largest absolute value). Returns (n, d) float32. A row whose norm is
    0 is returned unchanged (zeros, no nan). Any other ``kind`` raises
    ``ValueError`` (while tracing, which is fine: ``kind`` is a plain Python
    string inside the function). New values of x with the same shape and kind
    must not retrace.
    """
    raise NotImplementedError(
        "normalize_rows: jit it with kind static; choose the norm with a "
        "Python if"
    )
