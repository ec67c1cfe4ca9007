"""Restore a Sharded Checkpoint onto Another Mesh.

A checkpoint written by a run on one mesh is often read by a run on another:
more devices, fewer, or the same devices arranged otherwise. Orbax stores each
array as one global array, so a restore can lay it out anew: it takes a
*target*, a tree of ``jax.ShapeDtypeStruct``s whose shardings say where each
device's block should go, and each device reads the block its sharding asks
for. You build that target from the checkpoint's own metadata and restore.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jax
import orbax.checkpoint as ocp
from jax.sharding import Mesh, NamedSharding


def abstract_target(metadata: Any, mesh: Mesh, specs: Any) -> Any:
    """The restore target: a pytree like ``metadata`` (dicts, lists, tuples)
    with, for each leaf (anything with ``.shape`` and ``.dtype``: Orbax's
    ``ArrayMetadata``, a ``jax.ShapeDtypeStruct``, an array), a
    ``jax.ShapeDtypeStruct`` of the same shape and dtype whose sharding is
    ``NamedSharding(mesh, spec)``, spec being the PartitionSpec at the same
    place in ``specs``.

    Raise ``ValueError`` when specs has another structure, and a
    ``ValueError`` whose message starts with the leaf's path as
    ``jax.tree_util.keystr`` writes it (``['params']['w']``) when its spec
    names an axis the mesh does not have or does not divide its shape.
    """
    raise NotImplementedError("abstract_target: jax.tree.map_with_path")


def restore_onto(folder: str | Path, mesh: Mesh, specs: Any) -> Any:
    """The pytree of arrays saved by ``ocp.StandardCheckpointer`` in
    ``folder``, each placed on ``mesh`` by its spec, with the shapes and
    dtypes the checkpoint records.

    ``folder`` may be relative (a str or a Path). Raise
    ``FileNotFoundError`` naming the folder if there is none.
    """
    raise NotImplementedError(
        "restore_onto: StandardCheckpointer().metadata(...), then restore"
    )
