"""Pair adjacent features (2i, 2i + 1) instead of (i, i + H/2).

Caught by: test_hand_values, test_matches_complex_reference
"""

import jax
import jax.numpy as jnp


def rope_frequencies(head_dim: int, base: float = 10000.0) -> jax.Array:
    """theta_i = base ** (-2 i / H) for i < H // 2 -> float32 (H // 2,)."""
    exponents = jnp.arange(0, head_dim, 2, dtype=jnp.float32) / head_dim
    return base**-exponents


def apply_rope(
    x: jax.Array, positions: jax.Array, base: float = 10000.0
) -> jax.Array:
    """x: (T, N, H), positions: (T,) -> (T, N, H) rotated, same dtype as x."""
    # (T, H/2)
    angles = positions.astype(jnp.float32)[:, None] * rope_frequencies(
        x.shape[-1], base
    )
    cos = jnp.cos(angles)[:, None, :]  # (T, 1, H/2): broadcast over heads
    sin = jnp.sin(angles)[:, None, :]
    x1, x2 = (
        x[..., 0::2].astype(jnp.float32),
        x[..., 1::2].astype(jnp.float32),
    )
    rotated = jnp.stack(
        [x1 * cos - x2 * sin, x1 * sin + x2 * cos], axis=-1
    ).reshape(x.shape)
    return rotated.astype(x.dtype)
