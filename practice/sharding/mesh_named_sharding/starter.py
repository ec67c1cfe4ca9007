"""Device Mesh and Named Sharding.

Lay 8 devices out as a 2-D mesh with axes ``"data"`` and ``"model"``, translate
*logical* array axes ("batch", "embed", "mlp", ...) into a ``PartitionSpec``
with a table of rules, compute the shape of the block each device holds, and
place a whole pytree of arrays on the mesh.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import jax
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

# One rule per logical axis name: the mesh axis (or tuple of mesh axes) it is
# split over, or None to replicate it. For example:
#     {"batch": "data", "mlp": "model", "embed": None}
Rules = Mapping[str, str | tuple[str, ...] | None]


def make_mesh(data: int, model: int) -> Mesh:
    """A mesh of ``data * model`` devices of shape (data, model), axis names
    ("data", "model")."""
    raise NotImplementedError("make_mesh: jax.make_mesh")


def logical_to_spec(logical_axes: tuple[str | None, ...], rules: Rules) -> P:
    """Translate logical axis names into a PartitionSpec with one entry per
    array axis.

    logical_axes: one entry per array axis, a logical name or None
    (replicated). Each name is looked up in ``rules``; an unknown name raises
    ``KeyError``. A mesh axis may shard at most one array axis: if two array
    axes would use the same mesh axis, raise ``ValueError``. Example:
    ("batch", "embed") with {"batch": "data", "embed": None} gives
    ``P("data", None)``.
    """
    raise NotImplementedError(
        "logical_to_spec: look up each name, check no mesh axis repeats"
    )


def shard_shape(
    global_shape: tuple[int, ...], spec: P, mesh: Mesh
) -> tuple[int, ...]:
    """The shape of the block each device holds, computed by hand (not with
    NamedSharding).

    spec may be shorter than ``global_shape`` (missing entries mean
    replicated); an entry is None, a mesh axis name, or a tuple of names (split
    over their product). Raise ``ValueError`` if a dimension is not divisible
    by the number of devices it is split over.
    """
    raise NotImplementedError(
        "shard_shape: divide each dimension by the size of its mesh axes"
    )


def shard_tree(tree: Any, logical_axes: Any, mesh: Mesh, rules: Rules) -> Any:
    """Place every array of ``tree`` on ``mesh``.

    tree: a pytree of arrays; logical_axes: the same structure with, in place
    of each array, a tuple of logical names (one per array axis). Returns the
    same structure of ``jax.Array``s, each with sharding ``NamedSharding(mesh,
    logical_to_spec(axes, rules))`` and unchanged values.
    """
    raise NotImplementedError(
        "shard_tree: jax.tree.map + jax.device_put(x, NamedSharding(...))"
    )
