import jax
import jax.numpy as jnp


def distance(a, b):
    """Euclidean distance between TWO points. a, b: (d,) -> scalar."""
    return jnp.sqrt(jnp.sum((a - b) ** 2))


def pairwise(xs, ys):
    """All distances. xs: (n, d), ys: (m, d) -> (n, m)."""
    # a: (d,), ys: (m, d) -> (m,)
    one_vs_all = jax.vmap(distance, in_axes=(None, 0))
    return jax.vmap(one_vs_all, in_axes=(0, None))(xs, ys)  # -> (n, m)


kx, ky = jax.random.split(jax.random.key(0))
xs, ys = jax.random.normal(kx, (4, 3)), jax.random.normal(ky, (6, 3))
D = pairwise(xs, ys)
broadcast = jnp.sqrt(jnp.sum((xs[:, None, :] - ys[None, :, :]) ** 2, axis=-1))
print("distance matrix shape:", D.shape)
with jnp.printoptions(precision=3):
    print(D)
print("matches broadcasting:", jnp.allclose(D, broadcast))
