"""KV-Cache Sharding for Inference: reference solution."""

from __future__ import annotations

import math

from jax.sharding import PartitionSpec as P


def cache_spec(batch, context, kv_heads, data, model):
    """-> P(None, batch axis, context axis, heads axis, None)."""
    batch_axis = "data" if batch % data == 0 else None
    if kv_heads % model == 0:
        return P(None, batch_axis, None, "model", None)
    if context % model == 0:
        return P(None, batch_axis, "model", None, None)
    return P(None, batch_axis, None, None, None)


def bytes_per_device(shape, itemsize, spec, mesh):
    """Elements of one device's block times itemsize."""
    block = []
    for size, axes in zip(shape, tuple(spec) + (None,) * len(shape)):
        names = (
            () if axes is None else (axes,) if isinstance(axes, str) else axes
        )
        block.append(size // math.prod(mesh[a] for a in names))
    return math.prod(block) * itemsize
