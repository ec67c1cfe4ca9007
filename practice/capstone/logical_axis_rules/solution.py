"""Logical Axis Rules to PartitionSpecs: reference solution."""

from __future__ import annotations

import math

import jax
from jax.sharding import PartitionSpec as P

UNSET = object()  # an axis no rule has settled yet


def mesh_axes(target):
    """A rule's target as a tuple of mesh axis names."""
    if target is None:
        return ()
    return target if isinstance(target, tuple) else (target,)


def logical_to_spec(names, rules, shape=None, mesh_shape=None):
    """The PartitionSpec that the rules [(name, target), ...] give an array
    whose axes carry names (a tuple of str and None)."""
    named = [n for n in names if n is not None]
    if len(named) != len(set(named)):
        raise ValueError(f"a logical name appears twice in {names}")
    if (shape is None) != (mesh_shape is None):
        raise ValueError("give both shape and mesh_shape, or neither")
    if shape is not None and len(shape) != len(names):
        raise ValueError(
            f"{len(names)} names for a shape of rank {len(shape)}"
        )
    entries = [UNSET] * len(names)
    for name, target in rules:
        if name not in named:
            continue
        i = names.index(name)
        used = {a for e in entries if e is not UNSET for a in mesh_axes(e)}
        if entries[i] is not UNSET or used & set(mesh_axes(target)):
            continue
        if shape is not None:
            axes = mesh_axes(target)
            if any(a not in mesh_shape for a in axes):
                continue
            if shape[i] % math.prod(mesh_shape[a] for a in axes):
                continue
        entries[i] = target
    return P(*(None if e is UNSET else e for e in entries))


def is_names(x):
    """Whether x is one array's names: a tuple of str and None."""
    return isinstance(x, tuple) and all(
        n is None or isinstance(n, str) for n in x
    )


def tree_specs(logical, rules):
    """The PartitionSpec of every leaf of a pytree of name tuples."""
    return jax.tree.map(
        lambda names: logical_to_spec(names, rules), logical, is_leaf=is_names
    )
