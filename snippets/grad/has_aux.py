import jax
import jax.numpy as jnp


def loss_with_metrics(w, x, y):
    """Logistic loss. w: (d,), x: (n, d), y: (n,) in {0, 1} -> (scalar, dict of
    metrics)."""
    logits = x @ w
    loss = jnp.mean(jnp.logaddexp(0.0, logits) - y * logits)
    accuracy = jnp.mean((logits > 0) == (y == 1))
    return loss, {"accuracy": accuracy, "logits": logits}


x = jnp.array([[1.0, 2.0], [-1.0, 0.5], [2.0, -1.0]])
y = jnp.array([1.0, 0.0, 1.0])
w = jnp.array([0.3, -0.2])

(loss, aux), grads = jax.value_and_grad(loss_with_metrics, has_aux=True)(
    w, x, y
)
print("loss:    ", loss)
print("accuracy:", aux["accuracy"])
print("logits:  ", aux["logits"])
print("grads:   ", grads)
