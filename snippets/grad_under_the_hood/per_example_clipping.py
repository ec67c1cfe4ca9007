# platform: tpu differs -- A TPU multiplies float32 matrices in one bfloat16 pass by default and computes the logarithm inside `random.normal` with its own approximation, so the clipped norm prints 9.999999 where the CPU prints 10. and other digits move by up to 4e-5; the clipping and optax's mean are the same
import jax
import jax.numpy as jnp
import optax


def loss(w, x, y):
    """Squared error on ONE example. w: (d,), x: (d,), y: () -> scalar."""
    return (x @ w - y) ** 2


def clip(g, c):
    """Rescale g to norm at most c. g: (d,), c: () -> (d,)."""
    return g * jnp.minimum(1.0, c / jnp.linalg.norm(g))


def clipped_mean_grad(w, xs, ys, c):
    """Mean of per-example grads clipped to norm c. xs: (n, d) -> (d,)."""
    grads = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(w, xs, ys)
    return jax.vmap(clip, in_axes=(0, None))(grads, c).mean(axis=0)


kx, ky = jax.random.split(jax.random.key(0))
xs = jax.random.normal(kx, (4, 3))
ys = jax.random.normal(ky, (4,)).at[3].set(20.0)  # example 3: an outlier
w, c = jnp.array([0.5, -1.0, 0.2]), 10.0

grads = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(w, xs, ys)
clipped = jax.vmap(clip, in_axes=(0, None))(grads, c)
print("norms before clipping:", jnp.linalg.norm(grads, axis=1))
print("norms after clipping: ", jnp.linalg.norm(clipped, axis=1))
print("mean grad, unclipped: ", grads.mean(axis=0))
print("mean grad, clipped:   ", clipped_mean_grad(w, xs, ys, c))
(total,), n_clipped = optax.per_example_global_norm_clip([grads], c)
print(
    "optax: same mean:",
    jnp.allclose(total / len(xs), clipped.mean(axis=0)),
    "| clipped examples:",
    n_clipped,
)
