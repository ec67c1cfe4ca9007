"""Floor-divide the dimensions and never check that the split is even.

Caught by: test_shard_shape_rejects_uneven_splits
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import jax
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

Rules = Mapping[str, str | tuple[str, ...] | None]


def make_mesh(data: int, model: int) -> Mesh:
    """(data, model) device mesh with axis names ("data", "model")."""
    return jax.make_mesh((data, model), ("data", "model"))


def _mesh_axes(entry) -> tuple[str, ...]:
    """A spec entry (None, name or tuple of names) as a tuple of mesh axis
    names."""
    if entry is None:
        return ()
    return entry if isinstance(entry, tuple) else (entry,)


def logical_to_spec(logical_axes: tuple[str | None, ...], rules: Rules) -> P:
    """One PartitionSpec entry per logical axis; KeyError if unknown,
    ValueError if a mesh axis repeats."""
    entries = [None if name is None else rules[name] for name in logical_axes]
    used = [axis for entry in entries for axis in _mesh_axes(entry)]
    if len(used) != len(set(used)):
        raise ValueError(
            f"a mesh axis is used twice in {logical_axes} -> {entries}"
        )
    return P(*entries)


def shard_shape(
    global_shape: tuple[int, ...], spec: P, mesh: Mesh
) -> tuple[int, ...]:
    """Per-device block shape of an array of global_shape laid out with spec on
    mesh."""
    entries = tuple(spec) + (None,) * (len(global_shape) - len(spec))
    block = []
    for size, entry in zip(global_shape, entries):
        parts = math.prod(mesh.shape[axis] for axis in _mesh_axes(entry))
        block.append(size // parts)
    return tuple(block)


def shard_tree(tree: Any, logical_axes: Any, mesh: Mesh, rules: Rules) -> Any:
    """device_put every leaf with the NamedSharding its logical axes ask
    for."""

    def place(x, axes):
        return jax.device_put(
            x, NamedSharding(mesh, logical_to_spec(axes, rules))
        )

    return jax.tree.map(place, tree, logical_axes)
