"""Tests for Restore a Sharded Checkpoint onto Another Mesh (8 emulated CPU
devices; one small checkpoint, written once by Orbax)."""

import math

import jax
import jax.numpy as jnp
import numpy as np
import orbax.checkpoint as ocp
import pytest
from hypothesis import example, given, strategies as st
from jax.sharding import NamedSharding, PartitionSpec as P

#: The saved tree's values, as NumPy arrays (the oracle).
VALUES = {
    "params": {
        "w": np.arange(128, dtype=np.float32).reshape(8, 16) / 7,
        "scale": (np.arange(16) * 0.5).astype(jnp.bfloat16),
    },
    "layers": [
        np.arange(64, dtype=np.int32).reshape(8, 8) - 5,
        np.linspace(-1, 1, 16, dtype=np.float32).reshape(2, 8),
    ],
    "pair": {"step": np.int32(40), "b": np.float32([1, 2, 3, 4, 5, 6, 7, 8])},
}  # no tuple: Orbax's metadata gives a saved tuple back as a list
#: Meshes as (shape, number of devices used): the last two on 4 and 1.
MESHES = [((4, 2), 8), ((2, 4), 8), ((8, 1), 8), ((2, 2), 4), ((1, 1), 1)]
ENTRIES = [None, "data", "model", ("data", "model"), ("model", "data")]


def make_mesh(shape, count):
    return jax.make_mesh(
        shape, ("data", "model"), devices=jax.devices()[:count]
    )


def replicated(tree):
    return jax.tree.map(lambda x: P(), tree)


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """A checkpoint of VALUES, saved from the 4 x 2 mesh, w split on both
    axes."""
    mesh = make_mesh((4, 2), 8)
    tree = jax.tree.map(jnp.asarray, VALUES)
    tree["params"]["w"] = jax.device_put(
        tree["params"]["w"], NamedSharding(mesh, P("data", "model"))
    )
    path = tmp_path_factory.mktemp("ckpt") / "saved"
    checkpointer = ocp.StandardCheckpointer()
    checkpointer.save(path, tree)
    checkpointer.wait_until_finished()
    return path


def axes(entry):
    return (
        ()
        if entry is None
        else entry
        if isinstance(entry, tuple)
        else (entry,)
    )


def divides(shape, spec, mesh_shape):
    """By hand: every dimension splits evenly over its entry's axes."""
    entries = tuple(spec) + (None,) * (len(shape) - len(spec))
    return all(
        size % math.prod(mesh_shape[a] for a in axes(e)) == 0
        for size, e in zip(shape, entries)
    )


@st.composite
def specs_for(draw, shape):
    """A PartitionSpec for shape that uses each mesh axis at most once."""
    entries, used = [], set()
    for _ in shape:
        entry = draw(st.sampled_from(ENTRIES))
        if used & set(axes(entry)):
            entry = None
        used |= set(axes(entry))
        entries.append(entry)
    return P(*entries[: draw(st.integers(0, len(entries)))])


@st.composite
def tree_specs(draw):
    return jax.tree.map(lambda x: draw(specs_for(np.shape(x))), VALUES)


def check_placed(tree, mesh, specs):
    """Every leaf: the saved values, dtype and shape, laid out by its spec on
    exactly the mesh's devices, each device holding the right block."""
    assert jax.tree.structure(tree) == jax.tree.structure(VALUES)
    devices = set(mesh.devices.flat)
    for got, want, spec in zip(
        jax.tree.leaves(tree), jax.tree.leaves(VALUES), jax.tree.leaves(specs)
    ):
        assert isinstance(got, jax.Array)
        assert got.dtype == want.dtype and got.shape == np.shape(want)
        np.testing.assert_array_equal(np.asarray(got), want)
        assert got.sharding.is_equivalent_to(
            NamedSharding(mesh, spec), got.ndim
        )
        assert got.sharding.device_set == devices
        for shard in got.addressable_shards:
            np.testing.assert_array_equal(
                np.asarray(shard.data), want[shard.index]
            )


@pytest.mark.requirement(1)
def test_target_by_hand(impl):
    mesh = make_mesh((4, 2), 8)
    metadata = {
        "w": jax.ShapeDtypeStruct((8, 6), jnp.bfloat16),
        "rest": [np.zeros((4,), np.int32), (jnp.zeros(()),)],
    }
    specs = {"w": P("data", "model"), "rest": [P("data"), (P(),)]}
    target = impl.abstract_target(metadata, mesh, specs)
    assert jax.tree.structure(target) == jax.tree.structure(metadata)
    w = target["w"]
    assert isinstance(w, jax.ShapeDtypeStruct)
    assert (w.shape, w.dtype) == ((8, 6), jnp.bfloat16)
    assert w.sharding == NamedSharding(mesh, P("data", "model"))
    ids, (scalar,) = target["rest"]
    assert (ids.shape, ids.dtype, ids.sharding.spec) == (
        (4,),
        np.int32,
        P("data"),
    )
    assert (scalar.shape, scalar.dtype) == ((), jnp.float32)
    assert scalar.sharding == NamedSharding(mesh, P())


@pytest.mark.requirement(1, 2)
@given(st.sampled_from(MESHES), tree_specs())
@example(MESHES[3], replicated(VALUES))
def test_target_matches_by_hand(impl, mesh_at, specs):
    mesh = make_mesh(*mesh_at)
    metadata = jax.tree.map(
        lambda x: jax.ShapeDtypeStruct(np.shape(x), x.dtype), VALUES
    )
    fits = [
        divides(np.shape(x), s, dict(mesh.shape))
        for x, s in zip(jax.tree.leaves(VALUES), jax.tree.leaves(specs))
    ]
    if all(fits):
        target = impl.abstract_target(metadata, mesh, specs)
        for t, m, s in zip(
            jax.tree.leaves(target),
            jax.tree.leaves(metadata),
            jax.tree.leaves(specs),
        ):
            assert (t.shape, t.dtype) == (m.shape, m.dtype)
            assert t.sharding == NamedSharding(mesh, s)
    else:
        paths = [
            jax.tree_util.keystr(p)
            for p, _ in jax.tree.leaves_with_path(VALUES)
        ]
        with pytest.raises(ValueError) as error:
            impl.abstract_target(metadata, mesh, specs)
        first = paths[fits.index(False)]
        assert str(error.value).startswith(first), (first, str(error.value))


@pytest.mark.requirement(2)
def test_target_errors_name_the_leaf(impl):
    mesh = make_mesh((4, 2), 8)
    metadata = {"params": {"w": jax.ShapeDtypeStruct((6, 4), jnp.float32)}}
    for spec in [
        P("data"),
        P(None, ("data", "model")),
        P("pod"),
        P(None, "Data"),
    ]:
        with pytest.raises(ValueError) as error:
            impl.abstract_target(metadata, mesh, {"params": {"w": spec}})
        assert str(error.value).startswith("['params']['w']"), str(error.value)


@pytest.mark.requirement(3)
def test_target_rejects_another_structure(impl):
    mesh = make_mesh((4, 2), 8)
    metadata = {"a": jnp.zeros(4), "b": [jnp.zeros(4), jnp.zeros(4)]}
    for specs in [
        {"a": P()},
        {"a": P(), "b": [P()]},
        {"a": P(), "b": (P(), P())},
        {"a": P(), "c": [P(), P()]},
    ]:
        with pytest.raises(ValueError):
            impl.abstract_target(metadata, mesh, specs)


@pytest.mark.requirement(4, 5)
@pytest.mark.parametrize("mesh_at", MESHES, ids=str)
def test_restore_by_hand(impl, folder, mesh_at):
    mesh = make_mesh(*mesh_at)
    specs = {
        "params": {"w": P("model", "data"), "scale": P()},
        "layers": [P(None, "data"), P()],
        "pair": {"step": P(), "b": P(("data", "model"))},
    }
    tree = impl.restore_onto(folder, mesh, specs)
    check_placed(tree, mesh, specs)


@pytest.mark.requirement(4, 5)
@given(st.sampled_from(MESHES), tree_specs())
@example(MESHES[0], replicated(VALUES))
def test_restore_matches_the_saved_values(impl, folder, mesh_at, specs):
    mesh = make_mesh(*mesh_at)
    fits = all(
        divides(np.shape(x), s, dict(mesh.shape))
        for x, s in zip(jax.tree.leaves(VALUES), jax.tree.leaves(specs))
    )
    if not fits:
        with pytest.raises(ValueError):
            impl.restore_onto(folder, mesh, specs)
        return
    check_placed(impl.restore_onto(folder, mesh, specs), mesh, specs)


@pytest.mark.requirement(6)
@pytest.mark.parametrize("as_str", [True, False])
def test_relative_folder(impl, folder, monkeypatch, as_str):
    monkeypatch.chdir(folder.parent.parent)
    relative = folder.relative_to(folder.parent.parent)
    mesh = make_mesh((2, 2), 4)
    specs = replicated(VALUES)
    tree = impl.restore_onto(
        str(relative) if as_str else relative, mesh, specs
    )
    check_placed(tree, mesh, specs)


@pytest.mark.requirement(6)
def test_missing_folder(impl, folder, monkeypatch):
    mesh = make_mesh((2, 2), 4)
    with pytest.raises(FileNotFoundError, match="nowhere"):
        impl.restore_onto(folder.parent / "nowhere", mesh, replicated(VALUES))
    monkeypatch.chdir(folder.parent)
    with pytest.raises(FileNotFoundError, match="elsewhere"):
        impl.restore_onto("elsewhere", mesh, replicated(VALUES))
