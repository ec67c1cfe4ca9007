"""Rotary Position Embeddings (RoPE).

Encode the position of every query and key by rotating pairs of its features by
an angle that grows with the position. Then the dot product of a rotated query
and a rotated key depends only on their relative position.
"""

import jax
import jax.numpy as jnp


def rope_frequencies(head_dim: int, base: float = 10000.0) -> jax.Array:
    """Rotation frequency of each feature pair, float32 (H // 2,).

    head_dim: even H. For i = 0 ... H // 2 - 1:

        theta_i = base ** (-2 * i / H)
    """
    raise NotImplementedError(
        "rope_frequencies: one frequency per pair of features"
    )


def apply_rope(
    x: jax.Array, positions: jax.Array, base: float = 10000.0
) -> jax.Array:
    """Rotate queries or keys by their positions ("rotate half" pairing, as in
    GPT-NeoX/LLaMA).

    x: (T, N, H) with H even; positions: (T,) integers (may be traced).
    Feature i < H // 2 is paired with feature j = i + H // 2. With the angle
    a = positions[t] * theta_i, for every head n:

        out[t, n, i] = x[t, n, i] * cos(a) - x[t, n, j] * sin(a)
        out[t, n, j] = x[t, n, i] * sin(a) + x[t, n, j] * cos(a)

    Compute in float32; return x's dtype and shape.
    """
    raise NotImplementedError(
        "apply_rope: angles (T, H//2), cos/sin, rotate the two halves"
    )
