# platform: tpu differs -- A TPU multiplies float32 matrices in one bfloat16 pass by default and computes the logarithm inside `random.normal` with its own approximation, so the fifth digit moves (up to 3e-5) and the printed columns shift with it; the mean still equals the batch gradient
import jax
import jax.numpy as jnp


def loss(w, x, y):
    """Squared error on ONE example. w: (d,), x: (d,), y: () -> scalar."""
    return (x @ w - y) ** 2


def batch_loss(w, xs, ys):
    """Mean loss over a batch. xs: (n, d), ys: (n,) -> scalar."""
    return jnp.mean(jax.vmap(loss, in_axes=(None, 0, 0))(w, xs, ys))


key = jax.random.key(0)
kx, ky = jax.random.split(key)
xs = jax.random.normal(kx, (4, 3))
ys = jax.random.normal(ky, (4,))
w = jnp.array([0.5, -1.0, 0.2])

# grad for one example, vmapped over the batch; w is shared (None)
per_example = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(w, xs, ys)
print("per-example grads shape:", per_example.shape)
print(per_example)
print(
    "their mean == grad of the batch loss:",
    jnp.allclose(per_example.mean(axis=0), jax.grad(batch_loss)(w, xs, ys)),
)
print("per-example grad norms:", jnp.linalg.norm(per_example, axis=1))
