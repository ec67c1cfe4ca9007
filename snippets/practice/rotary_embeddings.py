# platform: tpu differs -- A TPU computes the float32 power `base**-e` with its own approximation, so the frequencies print 0.0999999 and 0.00999998 where the CPU prints 0.1 and 0.01, and the scores move in the fourth decimal; the relative-position property still holds
import jax
import jax.numpy as jnp

from practice.attention.rotary_embeddings.solution import (
    apply_rope,
    rope_frequencies,
)

print("frequencies for H=8:", rope_frequencies(8))

kq, kk = jax.random.split(jax.random.key(0))
q = jax.random.normal(kq, (1, 1, 8))  # (T=1, N=1, H=8)
k = jax.random.normal(kk, (1, 1, 8))


def score(m, n):
    """Dot product of q rotated to position m and k rotated to position n."""
    return float(
        jnp.sum(apply_rope(q, jnp.array([m])) * apply_rope(k, jnp.array([n])))
    )


for m, n in [(3, 1), (10, 8), (102, 100), (1, 3)]:
    print(
        f"query at {m:3d}, key at {n:3d} (m - n = {m - n:2d}): score "
        f"{score(m, n):+.4f}"
    )

x = jax.random.normal(jax.random.key(1), (4, 2, 8))  # (T, N, H)
rotated = apply_rope(x, jnp.arange(4))
print(
    "norms preserved:",
    jnp.allclose(
        jnp.linalg.norm(rotated, axis=-1), jnp.linalg.norm(x, axis=-1)
    ),
)
