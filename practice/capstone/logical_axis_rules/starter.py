"""Logical Axis Rules to PartitionSpecs.

Model code names the axes of every array with logical names ("batch",
"embed", "mlp", ...), and one list of rules maps them onto mesh axes, the way
Flax's ``logical_to_mesh_axes`` and MaxText's ``logical_axis_rules`` do. A
logical name may have several rules: the first that can apply wins, and the
others are fallbacks for when its mesh axis is taken or does not divide the
dimension.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import jax
from jax.sharding import PartitionSpec as P

#: A rule's target: a mesh axis, a tuple of mesh axes (split over their
#: product), or None (not split).
Target = str | tuple[str, ...] | None
#: Ordered (logical name, target) pairs, for example
#:     [("batch", "data"), ("mlp", "model"), ("embed", "data")]
Rules = Sequence[tuple[str, Target]]


def logical_to_spec(
    names: tuple[str | None, ...],
    rules: Rules,
    shape: tuple[int, ...] | None = None,
    mesh_shape: Mapping[str, int] | None = None,
) -> P:
    """The PartitionSpec, one entry per name, that the rules give an array
    whose axes carry ``names`` (a name or None per axis).

    Go through the rules in their order. A rule (name, target) applies to
    the array axis called ``name`` if that axis has no entry yet and none of
    the target's mesh axes is used by another entry; a rule to None settles
    the axis as not split. With ``shape`` and ``mesh_shape`` (mesh axis ->
    size), a rule is also skipped when the product of its axes' sizes does
    not divide the dimension, or when it names an axis the mesh does not
    have. An axis that no rule settles gets None. Raise ``ValueError`` for a
    name that appears twice, for only one of shape and mesh_shape, and for a
    shape of another length than names.
    """
    raise NotImplementedError("logical_to_spec: try the rules in order")


def tree_specs(logical: Any, rules: Rules) -> Any:
    """The same pytree as ``logical`` (dicts, lists, tuples) with a
    PartitionSpec in place of each array's names: a tuple of str and None,
    the empty tuple for a scalar."""
    raise NotImplementedError("tree_specs: jax.tree.map with is_leaf")
