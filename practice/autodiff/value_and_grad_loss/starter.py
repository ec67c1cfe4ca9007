"""Value and Grad of a Loss.

Logistic regression from first principles: write the loss, get the loss, an
extra metric and the gradient from one call of ``jax.value_and_grad``, and use
them for a few steps of gradient descent.

``params`` is a dict ``{"w": (d,) float32, "b": () float32}``; ``x`` is (n, d)
float32 and ``y`` is (n,) float32 with values 0.0 or 1.0. The logits are
``z = x @ w + b``.
"""

import jax
import jax.numpy as jnp


def logistic_loss(params: dict, x: jax.Array, y: jax.Array) -> jax.Array:
    """Mean binary cross-entropy with logits, a float32 scalar:

        mean(log(1 + exp(z)) - y * z)

    Must stay finite and accurate for large logits (|z| up to 1e4), and so
    must its gradient: ``log(1 + exp(z))`` written literally overflows for
    z > 88.
    """
    raise NotImplementedError(
        "logistic_loss: compute the logits, then a stable softplus"
    )


def loss_and_grad(
    params: dict, x: jax.Array, y: jax.Array
) -> tuple[tuple[jax.Array, jax.Array], dict]:
    """``((loss, accuracy), grads)`` from ONE ``jax.value_and_grad`` call.

    Use ``jax.value_and_grad(..., has_aux=True)``.

    loss: float32 scalar, as ``logistic_loss``; accuracy: float32 scalar, the
    fraction of examples with ``(z > 0) == (y == 1)``; grads: the gradient of
    the loss with respect to ``params``, a dict with the same keys, shapes and
    dtypes as ``params``. Must work under ``jax.jit``.
    """
    raise NotImplementedError(
        "loss_and_grad: a loss function returning (loss, accuracy), "
        "has_aux=True"
    )


def train(
    params: dict, x: jax.Array, y: jax.Array, lr: float, steps: int
) -> tuple[dict, jax.Array]:
    """Full-batch gradient descent: ``steps`` updates ``p <- p - lr * g``.

    steps is a Python int >= 1; every leaf is updated.

    Returns ``(final_params, losses)`` where losses: (steps,) float32 holds the
    loss evaluated just before each update. ``params`` itself is not modified.
    """
    raise NotImplementedError(
        "train: loop loss_and_grad and apply the update to every leaf"
    )
