"""Tests for Device Mesh and Named Sharding (8 emulated CPU devices)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import NamedSharding, PartitionSpec as P

RULES = {"batch": "data", "embed": None, "mlp": "model", "heads": "model"}


def test_make_mesh_shapes(impl):
    for data, model in [(4, 2), (2, 4), (8, 1), (2, 2)]:
        mesh = impl.make_mesh(data, model)
        assert dict(mesh.shape) == {"data": data, "model": model}
        assert tuple(mesh.axis_names) == ("data", "model")
        assert mesh.devices.shape == (data, model)
        assert len({d.id for d in mesh.devices.flat}) == data * model


def test_logical_to_spec(impl):
    assert impl.logical_to_spec(("batch", "embed"), RULES) == P("data", None)
    assert impl.logical_to_spec(("embed", "mlp"), RULES) == P(None, "model")
    assert impl.logical_to_spec(("batch", None, "heads"), RULES) == P(
        "data", None, "model"
    )
    assert impl.logical_to_spec((), RULES) == P()
    both = {"batch": ("data", "model"), "embed": None}
    assert impl.logical_to_spec(("batch", "embed"), both) == P(
        ("data", "model"), None
    )


def test_logical_to_spec_errors(impl):
    with pytest.raises(ValueError):
        impl.logical_to_spec(("mlp", "heads"), RULES)  # both on "model"
    with pytest.raises(ValueError):
        impl.logical_to_spec(
            ("batch", "mlp"), {"batch": ("data", "model"), "mlp": "model"}
        )
    with pytest.raises(KeyError):
        impl.logical_to_spec(("batch", "vocab"), RULES)


def test_shard_shape_by_hand(impl):
    mesh = impl.make_mesh(4, 2)
    assert impl.shard_shape((16, 8), P("data", None), mesh) == (4, 8)
    assert impl.shard_shape((16, 8), P(None, "model"), mesh) == (16, 4)
    assert impl.shard_shape((16, 8), P("data", "model"), mesh) == (4, 4)
    assert impl.shard_shape((16, 8), P(("data", "model")), mesh) == (2, 8)
    assert impl.shard_shape((16, 8), P(), mesh) == (16, 8)
    assert impl.shard_shape((6, 5, 3), P("model"), mesh) == (3, 5, 3)


def test_shard_shape_agrees_with_named_sharding(impl):
    for data, model in [(4, 2), (2, 4)]:
        mesh = impl.make_mesh(data, model)
        for shape, spec in [
            ((8, 24), P("data", "model")),
            ((24, 8), P("model", "data")),
            ((8, 8, 3), P(None, ("data", "model"))),
            ((16,), P(("model", "data"))),
        ]:
            expected = NamedSharding(mesh, spec).shard_shape(shape)
            assert impl.shard_shape(shape, spec, mesh) == tuple(expected), (
                shape,
                spec,
            )


def test_shard_shape_rejects_uneven_splits(impl):
    mesh = impl.make_mesh(4, 2)
    with pytest.raises(ValueError):
        impl.shard_shape((6, 8), P("data", None), mesh)
    with pytest.raises(ValueError):
        impl.shard_shape((12, 3), P(None, "model"), mesh)


def test_shard_tree_places_every_leaf(impl):
    mesh = impl.make_mesh(4, 2)
    rng = np.random.default_rng(0)
    tree = {
        "w1": rng.normal(size=(8, 16)),
        "w2": rng.normal(size=(16, 8)),
        "b": rng.normal(size=(16,)),
        "x": rng.normal(size=(8, 8)),
    }
    tree = jax.tree.map(lambda a: jnp.asarray(a, jnp.float32), tree)
    axes = {
        "w1": ("embed", "mlp"),
        "w2": ("mlp", "embed"),
        "b": ("mlp",),
        "x": ("batch", "embed"),
    }
    specs = {
        "w1": P(None, "model"),
        "w2": P("model", None),
        "b": P("model"),
        "x": P("data", None),
    }
    blocks = {"w1": (8, 8), "w2": (8, 8), "b": (8,), "x": (2, 8)}
    distinct = {
        "w1": 2,
        "w2": 2,
        "b": 2,
        "x": 4,
    }  # how many different blocks exist
    placed = impl.shard_tree(tree, axes, mesh, RULES)
    assert jax.tree.structure(placed) == jax.tree.structure(tree)
    for name, arr in placed.items():
        assert isinstance(arr, jax.Array)
        assert arr.sharding.is_equivalent_to(
            NamedSharding(mesh, specs[name]), arr.ndim
        ), name
        np.testing.assert_array_equal(arr, tree[name])
        shards = arr.addressable_shards
        assert len(shards) == 8
        assert all(s.data.shape == blocks[name] for s in shards), name
        assert len({str(s.index) for s in shards}) == distinct[name], name


def test_shard_tree_other_mesh(impl):
    mesh = impl.make_mesh(2, 4)
    x = jnp.arange(32.0).reshape(4, 8)
    placed = impl.shard_tree({"x": x}, {"x": ("batch", "mlp")}, mesh, RULES)[
        "x"
    ]
    assert placed.sharding.is_equivalent_to(
        NamedSharding(mesh, P("data", "model")), 2
    )
    assert {s.data.shape for s in placed.addressable_shards} == {(2, 2)}
    np.testing.assert_array_equal(placed, x)
