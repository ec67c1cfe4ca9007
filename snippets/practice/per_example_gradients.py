import jax
import jax.numpy as jnp
import numpy as np

from practice.autodiff.per_example_gradients.solution import (
    clipped_mean_grad,
    per_example_grads,
)


def loss_fn(params, x, y):
    """Squared error of a linear model on one example. x: (d,), y: () ->
    scalar."""
    return (x @ params["w"] + params["b"] - y) ** 2


params = {"w": jnp.array([1.0, -1.0]), "b": jnp.float32(0.0)}
xs = jnp.array([[1.0, 0.0], [1.0, 2.0], [3.0, 3.0]])
ys = jnp.array([0.0, 0.0, 1.0])

grads = per_example_grads(loss_fn, params, xs, ys)
print("per-example grad w:\n", grads["w"])
print("per-example grad b:", grads["b"])

batch_grad = jax.grad(
    lambda p: jnp.mean(jax.vmap(loss_fn, in_axes=(None, 0, 0))(p, xs, ys))
)(params)
print(
    "mean of per-example == batch gradient:",
    np.allclose(grads["w"].mean(0), batch_grad["w"]),
)

clipped = clipped_mean_grad(loss_fn, params, xs, ys, max_norm=1.0)
print(
    "clipped mean grad w:",
    np.asarray(clipped["w"]).round(4),
    " b:",
    np.asarray(clipped["b"]).round(4),
)
