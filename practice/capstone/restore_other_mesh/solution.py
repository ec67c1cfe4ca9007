"""Restore a Sharded Checkpoint onto Another Mesh: reference solution."""

from __future__ import annotations

from pathlib import Path

import jax
import orbax.checkpoint as ocp
from jax.sharding import NamedSharding


def abstract_target(metadata, mesh, specs):
    """A jax.ShapeDtypeStruct per leaf of metadata, laid out on mesh by the
    PartitionSpec at the same place in specs."""

    def leaf(path, meta, spec):
        try:
            sharding = NamedSharding(mesh, spec)
            sharding.shard_shape(meta.shape)  # raises if it does not divide
        except ValueError as e:
            where = jax.tree_util.keystr(path)
            raise ValueError(f"{where}: {meta.shape} as {spec}: {e}") from e
        return jax.ShapeDtypeStruct(meta.shape, meta.dtype, sharding=sharding)

    return jax.tree.map_with_path(leaf, metadata, specs)


def restore_onto(folder, mesh, specs):
    """The tree saved in folder, each array placed on mesh by its spec."""
    folder = Path(folder).absolute()  # Orbax takes absolute paths only
    if not folder.is_dir():
        raise FileNotFoundError(f"{folder}: no checkpoint there")
    checkpointer = ocp.StandardCheckpointer()
    metadata = checkpointer.metadata(folder).item_metadata.tree
    return checkpointer.restore(folder, abstract_target(metadata, mesh, specs))
