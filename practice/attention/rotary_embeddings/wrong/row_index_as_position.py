"""Rotate row t by t (jnp.arange(T)) instead of by positions[t].

Caught by: test_hand_values, test_under_jit_with_traced_positions
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
    half = x.shape[-1] // 2
    positions = jnp.arange(x.shape[0])  # row t at position t
    # (T, H/2)
    angles = positions.astype(jnp.float32)[:, None] * rope_frequencies(
        x.shape[-1], base
    )
    cos = jnp.cos(angles)[:, None, :]  # (T, 1, H/2): broadcast over heads
    sin = jnp.sin(angles)[:, None, :]
    x1, x2 = (
        x[..., :half].astype(jnp.float32),
        x[..., half:].astype(jnp.float32),
    )
    rotated = jnp.concatenate(
        [x1 * cos - x2 * sin, x1 * sin + x2 * cos], axis=-1
    )
    return rotated.astype(x.dtype)
