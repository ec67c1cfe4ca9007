import jax
import jax.numpy as jnp


def rotate(x, position, base=10000.0):
    """Rotate pairs (2i, 2i + 1) by position * base**(-2i/d): (d,) -> (d,)."""
    d = x.shape[-1]
    # (d/2,) one angle per pair
    angles = position * base ** (-jnp.arange(0, d, 2) / d)
    cos, sin = jnp.cos(angles), jnp.sin(angles)
    x1, x2 = x[0::2], x[1::2]
    return jnp.stack(
        [x1 * cos - x2 * sin, x1 * sin + x2 * cos], axis=-1
    ).reshape(d)


q, k = jax.random.normal(jax.random.key(0), (2, 8))
print(
    "norm kept:",
    jnp.allclose(jnp.linalg.norm(rotate(q, 7)), jnp.linalg.norm(q)),
)
# query position m, key position n, always m - n = 2
for m, n in [(5, 3), (12, 10), (102, 100)]:
    print(f"q at {m:3d}, k at {n:3d}: score {rotate(q, m) @ rotate(k, n):.4f}")
print(
    f"q at   5, k at   1: score {rotate(q, 5) @ rotate(k, 1):.4f}  (offset 4)"
)
