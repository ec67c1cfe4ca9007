"""KV-Cache Sharding for Inference.

Choose how a server splits its KV cache over a ("data", "model") mesh, and
count the bytes each device then holds: the first two questions of sharding
a model for inference.
"""

from __future__ import annotations

import math

from jax.sharding import PartitionSpec as P


def cache_spec(
    batch: int, context: int, kv_heads: int, data: int, model: int
) -> P:
    """The PartitionSpec of one layer stack of keys (or values), shaped
    (layers, batch, context, kv_heads, head_dim), on a mesh of `data` x
    `model` devices with axes ("data", "model").

    - "data" splits the batch, when `data` divides `batch`; otherwise the
      batch is not split.
    - "model" splits the key/value heads when `model` divides `kv_heads`;
      otherwise the sequence (`context`) when `model` divides it; otherwise
      nothing.
    - layers and head_dim are never split; each spec has five entries.
    """
    raise NotImplementedError("cache_spec: divisibility decides each entry")


def bytes_per_device(
    shape: tuple[int, ...], itemsize: int, spec: P, mesh: dict[str, int]
) -> int:
    """Bytes of one device's block of an array of `shape` and `itemsize`
    bytes per element, laid out by `spec` (one entry per dimension: None,
    an axis name, or a tuple of axis names) on a mesh whose axis sizes are
    `mesh` ({"data": 2, "model": 4}, say). Every split divides its
    dimension evenly."""
    raise NotImplementedError("bytes_per_device: divide each split dimension")
