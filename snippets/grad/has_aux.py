# platform: tpu rtol=2e-4 -- A TPU multiplies float32 matrices in one bfloat16 pass by default and computes float32 exp and log with its own approximations, so the loss and gradient move in the fifth digit (up to 6e-5)
import jax
import jax.numpy as jnp


def loss_with_metrics(w, x, y):
    """Logistic loss and metrics. w: (d,), x: (n, d), y: (n,) -> ((), dict)."""
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

# grad with has_aux returns (grads, aux); aux adds nothing to the gradient
grads, aux = jax.grad(loss_with_metrics, has_aux=True)(w, x, y)
loss_only = jax.grad(lambda w: loss_with_metrics(w, x, y)[0])(w)
print("grad(has_aux=True):", grads, "| aux keys:", sorted(aux))
print("same as grad of the loss alone:", jnp.array_equal(grads, loss_only))
