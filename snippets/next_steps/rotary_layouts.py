"""Interleaved and rotate-half RoPE: one rotation, two feature layouts."""

import jax
import jax.numpy as jnp


def angles(position, d, base=10000.0):
    """Angle of each of the d / 2 pairs at this position -> (d / 2,)."""
    return position * base ** (-jnp.arange(0, d, 2) / d)


def rope_interleaved(x, position):
    """Pairs (2i, 2i + 1), as in Meta's LLaMA code. x: (d,) -> (d,)."""
    a = angles(position, x.shape[-1])
    x1, x2 = x[0::2], x[1::2]
    out = jnp.stack(
        [x1 * jnp.cos(a) - x2 * jnp.sin(a), x1 * jnp.sin(a) + x2 * jnp.cos(a)],
        axis=-1,
    )
    return out.reshape(x.shape)


def rope_half(x, position):
    """Pairs (i, i + d/2), as in GPT-NeoX and HF LLaMA. x: (d,) -> (d,)."""
    a = jnp.tile(angles(position, x.shape[-1]), 2)
    x1, x2 = jnp.split(x, 2)
    return x * jnp.cos(a) + jnp.concatenate([-x2, x1]) * jnp.sin(a)


q = jax.random.normal(jax.random.key(0), (8,))
to_half = jnp.concatenate([jnp.arange(0, 8, 2), jnp.arange(1, 8, 2)])
print("feature order for rotate-half:", to_half.tolist())
print(
    "same rotation after reordering:",
    bool(
        jnp.allclose(
            rope_half(q[to_half], 5),
            rope_interleaved(q, 5)[to_half],
            atol=1e-6,
        )
    ),
)
print(
    "without reordering they differ:",
    not bool(jnp.allclose(rope_half(q, 5), rope_interleaved(q, 5))),
)
