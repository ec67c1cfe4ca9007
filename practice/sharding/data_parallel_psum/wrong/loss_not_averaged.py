"""Return the psum of the local losses without dividing by n.

Caught by: test_step_equals_single_device_sgd
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

LossFn = Callable[[Any, jax.Array, jax.Array], jax.Array]


def _place(mesh: Mesh, params, x, y):
    """Replicate params, split x and y by rows over "data"."""
    replicated, rows = NamedSharding(mesh, P()), NamedSharding(mesh, P("data"))
    return (
        jax.device_put(params, replicated),
        jax.device_put(x, rows),
        jax.device_put(y, rows),
    )


def _local_value_and_grad(loss_fn: LossFn, params, x, y):
    """Loss and gradient of this device's slice only.

    The params enter shard_map as replicated (invariant over "data").
    Differentiating with respect to an invariant value makes JAX sum the
    gradient over the axis by itself, so mark them as varying first: then the
    gradient is purely local and the psum below is the only reduction.
    """
    params = jax.lax.pcast(params, "data", to="varying")
    return jax.value_and_grad(loss_fn)(params, x, y)


def per_device_grads(
    loss_fn: LossFn, params: Any, x: jax.Array, y: jax.Array, mesh: Mesh
) -> Any:
    """Leaves (n, *leaf.shape): the gradient on each device's slice of the
    batch."""

    def local(params, x, y):
        _, grads = _local_value_and_grad(loss_fn, params, x, y)
        # (1, ...) per device -> (n, ...)
        return jax.tree.map(lambda g: g[None], grads)

    sharded = jax.shard_map(
        local,
        mesh=mesh,
        in_specs=(P(), P("data"), P("data")),
        out_specs=P("data"),
    )
    return sharded(*_place(mesh, params, x, y))


def dp_train_step(
    loss_fn: LossFn,
    params: Any,
    x: jax.Array,
    y: jax.Array,
    mesh: Mesh,
    lr: float,
) -> tuple[Any, jax.Array]:
    """One SGD step on the global batch: psum of local gradients / n."""

    def local(params, x, y):
        loss, grads = _local_value_and_grad(loss_fn, params, x, y)
        n = jax.lax.axis_size("data")
        loss, grads = jax.lax.psum((loss, grads), "data")
        new_params = jax.tree.map(lambda p, g: p - lr * g / n, params, grads)
        return new_params, loss

    sharded = jax.shard_map(
        local,
        mesh=mesh,
        in_specs=(P(), P("data"), P("data")),
        out_specs=(P(), P()),
    )
    return sharded(*_place(mesh, params, x, y))
