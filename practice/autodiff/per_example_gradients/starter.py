"""Per-Example Gradients with vmap.

``jax.grad`` of a mean loss gives the average gradient of a batch. Some methods
need the gradient of every example separately: differentially private SGD clips
each one, influence functions and gradient-noise measurements compare them.
Compose ``jax.grad`` with ``jax.vmap`` to get them all in one vectorized call,
then implement DP-SGD's per-example clipping.

``loss_fn(params, x, y)`` is the loss of ONE example (a float32 scalar);
``params`` is any pytree of float32 arrays; ``xs`` and ``ys`` stack B examples
along axis 0.
"""

from collections.abc import Callable

import jax
import jax.numpy as jnp


def per_example_grads(loss_fn: Callable, params, xs: jax.Array, ys: jax.Array):
    """Gradient of ``loss_fn`` with respect to ``params`` for every example.

    xs: (B, ...), ys: (B, ...). Returns a pytree with the structure of
    ``params`` in which each leaf has shape (B, *leaf.shape): entry b is
    ``jax.grad(loss_fn)(params, xs[b], ys[b])``. No Python loop over the batch.
    Must work under ``jax.jit``.
    """
    raise NotImplementedError(
        "per_example_grads: vmap the gradient, params are shared "
        "(in_axes=None)"
    )


def clipped_mean_grad(
    loss_fn: Callable, params, xs: jax.Array, ys: jax.Array, max_norm: float
):
    """DP-SGD gradient, without noise: clip each example's gradient, average.

    For each example b, let ``n_b`` be the global L2 norm of its gradient (the
    square root of the sum of squares over ALL leaves). Scale that gradient by

        min(1, max_norm / n_b)

    (an example with ``n_b == 0`` keeps its zero gradient; no nan), then take
    the mean over the B examples. ``max_norm`` > 0
    may be a traced scalar under ``jax.jit``. Returns a pytree like ``params``.
    """
    raise NotImplementedError(
        "clipped_mean_grad: per-example grads, per-example norms, scale, mean"
    )
