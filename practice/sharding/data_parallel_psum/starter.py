"""Data-Parallel Step with psum.

Each device of a 1-D mesh with axis ``"data"`` holds the full parameters and
one slice of the batch. It computes the gradient of the loss on its slice;
``jax.lax.psum`` adds the gradients of all devices so that every device applies
the same update. Write it with ``jax.shard_map``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

# loss_fn(params, x, y) -> scalar: the MEAN loss over the rows of x and y
LossFn = Callable[[Any, jax.Array, jax.Array], jax.Array]


def per_device_grads(
    loss_fn: LossFn, params: Any, x: jax.Array, y: jax.Array, mesh: Mesh
) -> Any:
    """The gradient each device computes on its own slice of the batch, before
    any reduction.

    params: pytree of arrays (replicated on every device); x: (N, ...) and
    y: (N, ...), with N divisible by n = mesh.shape["data"]; device i gets
    the rows i * N/n ... (i + 1) * N/n - 1. The inputs may be unplaced arrays:
    put them on the mesh first. Returns a pytree shaped like ``params`` whose
    leaves have an extra leading axis of size n:

        out[i] = grad(loss_fn)(params, x_i, y_i)
    """
    raise NotImplementedError(
        "per_device_grads: shard_map over 'data' with out_specs P('data')"
    )


def dp_train_step(
    loss_fn: LossFn,
    params: Any,
    x: jax.Array,
    y: jax.Array,
    mesh: Mesh,
    lr: float,
) -> tuple[Any, jax.Array]:
    """One step of data-parallel SGD, written with ``jax.shard_map`` and
    ``jax.lax.psum``.

    Same inputs as ``per_device_grads``. Inside the shard_map each device
    computes its local loss and gradient, averages both over the ``"data"``
    axis with ``psum`` (divided by n), and applies ``params - lr * grad``. With
    equal slices this equals one SGD step on the whole batch. Returns
    ``(new_params, loss)``: new_params replicated on every device, loss the
    mean loss of the whole batch at the old parameters (a float32 scalar).
    """
    raise NotImplementedError(
        "dp_train_step: local grads, psum over 'data', divide by n, update"
    )
