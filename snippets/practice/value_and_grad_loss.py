import jax
import jax.numpy as jnp
import numpy as np

from practice.autodiff.value_and_grad_loss.solution import (
    logistic_loss,
    loss_and_grad,
    train,
)

x = jax.random.normal(jax.random.key(0), (64, 2))
# a linearly separable rule
y = (x[:, 0] - 2 * x[:, 1] > 0).astype(jnp.float32)
params = {"w": jnp.zeros(2), "b": jnp.float32(0.0)}

(loss, accuracy), grads = loss_and_grad(params, x, y)
print(f"loss at zero params: {loss:.6f}  (log 2 = {np.log(2.0):.6f})")
print("accuracy (predicts 0 everywhere):", accuracy)
print(
    "grad w:",
    np.asarray(grads["w"]).round(4),
    " grad b:",
    np.asarray(grads["b"]).round(4),
)

final, losses = train(params, x, y, lr=1.0, steps=50)
print("loss every 10 steps:", np.asarray(losses[::10]).round(4))
(final_loss, final_accuracy), _ = loss_and_grad(final, x, y)
print(f"after 50 steps: loss {final_loss:.4f}, accuracy {final_accuracy}")

# y = 1, z = 20: the loss softplus(-z) is tiny; softplus(z) - z cancels to 0
one = {"w": jnp.array([1.0]), "b": jnp.float32(0.0)}
z20, y1 = jnp.array([[20.0]]), jnp.array([1.0])
print("logistic_loss:       ", logistic_loss(one, z20, y1))
print("softplus(z) - y * z: ", jax.nn.softplus(20.0) - 20.0)
