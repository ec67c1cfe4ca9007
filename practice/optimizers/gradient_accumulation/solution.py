"""Gradient Accumulation with Scan: reference solution."""

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp

PyTree = Any


def split_micro_batches(batch: PyTree, k: int) -> PyTree:
    """Leaves (B, ...) -> (k, B // k, ...); ValueError if B % k != 0."""
    sizes = {leaf.shape[0] for leaf in jax.tree.leaves(batch)}
    if len(sizes) != 1:
        raise ValueError(
            f"batch leaves have different leading sizes: {sorted(sizes)}"
        )
    (size,) = sizes
    if k < 1:
        raise ValueError(f"num_micro_batches={k} must be at least 1")
    if size % k:
        raise ValueError(
            f"batch size {size} is not divisible by num_micro_batches={k}"
        )
    return jax.tree.map(lambda x: x.reshape(k, size // k, *x.shape[1:]), batch)


def accumulate_gradients(
    loss_fn: Callable[[PyTree, PyTree], jax.Array],
    params: PyTree,
    batch: PyTree,
    num_micro_batches: int,
) -> tuple[jax.Array, PyTree]:
    """(mean loss, mean grads) over k micro-batches, one per scan step."""
    micro_batches = split_micro_batches(batch, num_micro_batches)
    value_and_grad = jax.value_and_grad(loss_fn)

    def step(carry, micro_batch):
        loss_sum, grad_sum = carry
        loss, grads = value_and_grad(params, micro_batch)
        return (loss_sum + loss, jax.tree.map(jnp.add, grad_sum, grads)), None

    zeros = (jnp.zeros((), jnp.float32), jax.tree.map(jnp.zeros_like, params))
    (loss_sum, grad_sum), _ = jax.lax.scan(step, zeros, micro_batches)

    def mean(x):
        return x / num_micro_batches

    return mean(loss_sum), jax.tree.map(mean, grad_sum)
