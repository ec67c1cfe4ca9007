"""Tests for Device Mesh and Named Sharding (8 emulated CPU devices)."""

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import example, given, strategies as st
from jax.sharding import NamedSharding, PartitionSpec as P

RULES = {"batch": "data", "embed": None, "mlp": "model", "heads": "model"}


@pytest.mark.requirement(1)
def test_make_mesh_shapes(impl):
    for data, model in [(4, 2), (2, 4), (8, 1), (2, 2)]:
        mesh = impl.make_mesh(data, model)
        assert dict(mesh.shape) == {"data": data, "model": model}
        assert tuple(mesh.axis_names) == ("data", "model")
        assert mesh.devices.shape == (data, model)
        assert len({d.id for d in mesh.devices.flat}) == data * model


@pytest.mark.requirement(2)
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


@pytest.mark.requirement(3)
def test_logical_to_spec_errors(impl):
    with pytest.raises(ValueError):
        impl.logical_to_spec(("mlp", "heads"), RULES)  # both on "model"
    with pytest.raises(ValueError):
        impl.logical_to_spec(
            ("batch", "mlp"), {"batch": ("data", "model"), "mlp": "model"}
        )
    with pytest.raises(KeyError):
        impl.logical_to_spec(("batch", "vocab"), RULES)


@pytest.mark.requirement(4)
def test_shard_shape_by_hand(impl):
    mesh = impl.make_mesh(4, 2)
    assert impl.shard_shape((16, 8), P("data", None), mesh) == (4, 8)
    assert impl.shard_shape((16, 8), P(None, "model"), mesh) == (16, 4)
    assert impl.shard_shape((16, 8), P("data", "model"), mesh) == (4, 4)
    assert impl.shard_shape((16, 8), P(("data", "model")), mesh) == (2, 8)
    assert impl.shard_shape((16, 8), P(), mesh) == (16, 8)
    assert impl.shard_shape((6, 5, 3), P("model"), mesh) == (3, 5, 3)


@pytest.mark.requirement(4)
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


@pytest.mark.requirement(5)
def test_shard_shape_rejects_uneven_splits(impl):
    mesh = impl.make_mesh(4, 2)
    with pytest.raises(ValueError):
        impl.shard_shape((6, 8), P("data", None), mesh)
    with pytest.raises(ValueError):
        impl.shard_shape((12, 3), P(None, "model"), mesh)


@pytest.mark.requirement(6)
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


@pytest.mark.requirement(7)
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


ENTRIES = [None, "data", "model", ("data", "model"), ("model", "data")]
MESHES = [(4, 2), (2, 4), (8, 1), (1, 8), (2, 2)]


def axes_of(entry):
    return (
        ()
        if entry is None
        else entry
        if isinstance(entry, tuple)
        else (entry,)
    )


@pytest.mark.requirement(4, 5)
@given(
    mesh_shape=st.sampled_from(MESHES),
    dims=st.lists(
        st.sampled_from([1, 2, 3, 4, 6, 8, 12, 24]), min_size=1, max_size=3
    ),
    entries=st.lists(st.sampled_from(ENTRIES), max_size=3),
)
@example(mesh_shape=(4, 2), dims=[6, 5], entries=["data"])
@example(mesh_shape=(4, 2), dims=[1, 8], entries=[None, "model"])
def test_shard_shape_matches_named_sharding(impl, mesh_shape, dims, entries):
    """Random shapes (odd and size-1 dimensions), specs shorter than the
    shape, tuple entries: NamedSharding's block shape, or ValueError when a
    dimension does not split evenly."""
    entries = entries[: len(dims)]
    used = [a for e in entries for a in axes_of(e)]
    if len(used) != len(set(used)):  # not a valid spec
        entries = entries[:1]
    mesh = impl.make_mesh(*mesh_shape)
    sizes = dict(zip(("data", "model"), mesh_shape))
    spec = P(*entries)
    parts = [int(np.prod([sizes[a] for a in axes_of(e)])) for e in entries] + [
        1
    ] * (len(dims) - len(entries))
    if any(d % k for d, k in zip(dims, parts)):
        with pytest.raises(ValueError):
            impl.shard_shape(tuple(dims), spec, mesh)
    else:
        expected = NamedSharding(mesh, spec).shard_shape(tuple(dims))
        block = impl.shard_shape(tuple(dims), spec, mesh)
        assert block == tuple(expected)
        # a shape holds ints, as NamedSharding's does: 4.0 == 4, but not a size
        assert all(type(size) is int for size in block), block


@pytest.mark.requirement(2, 3)
@given(
    rules=st.dictionaries(
        st.sampled_from(["batch", "embed", "mlp", "heads"]),
        st.sampled_from(ENTRIES),
        min_size=1,
    ),
    names=st.lists(
        st.sampled_from(["batch", "embed", "mlp", "heads", "vocab", None]),
        max_size=3,
    ),
)
@example(rules={"batch": "data"}, names=[None, "batch"])
def test_logical_to_spec_matches_oracle(impl, rules, names):
    """Brute force: look up each name; KeyError for an unknown one, else
    ValueError if a mesh axis repeats, else the PartitionSpec."""
    if any(n is not None and n not in rules for n in names):
        with pytest.raises(KeyError):
            impl.logical_to_spec(tuple(names), rules)
        return
    entries = [None if n is None else rules[n] for n in names]
    used = [a for e in entries for a in axes_of(e)]
    if len(used) != len(set(used)):
        with pytest.raises(ValueError):
            impl.logical_to_spec(tuple(names), rules)
    else:
        assert impl.logical_to_spec(tuple(names), rules) == P(*entries)


class Layer(NamedTuple):
    w: jax.Array
    b: jax.Array


W_AXES, B_AXES, X_AXES = ("embed", "mlp"), ("mlp",), ("batch", "embed")

#: Every container of a pytree: (tree of the arrays w, b, x; the same
#: structure holding their logical axes).
CONTAINERS = {
    "dict": lambda w, b, x: {"w": w, "b": b, "x": x},
    "list": lambda w, b, x: [w, b, x],
    "tuple": lambda w, b, x: (w, b, x),
    "named tuple": lambda w, b, x: (Layer(w, b), x),
    "nested": lambda w, b, x: {"layers": [Layer(w, b)], "inputs": (x,)},
}


@pytest.mark.requirement(6)
@pytest.mark.parametrize("container", [*CONTAINERS, "bare array"])
def test_shard_tree_every_container(impl, container):
    """Lists, tuples, named tuples, nested ones and a bare array are pytrees
    too: each leaf gets its NamedSharding and its values; the caller's tree
    still holds its own (unplaced) arrays afterwards."""
    mesh = impl.make_mesh(4, 2)
    w = jnp.arange(128.0).reshape(8, 16)
    b, x = jnp.arange(16.0), jnp.arange(64.0).reshape(8, 8)
    specs = [P(None, "model"), P("model"), P("data", None)]
    if container == "bare array":
        tree, axes, expected = x, X_AXES, [(x, specs[2])]
    else:
        build = CONTAINERS[container]
        tree, axes = build(w, b, x), build(W_AXES, B_AXES, X_AXES)
        expected = list(zip([w, b, x], specs))
    before = jax.tree.leaves(tree)
    placed = impl.shard_tree(tree, axes, mesh, RULES)
    assert jax.tree.structure(placed) == jax.tree.structure(tree)
    assert all(a is b for a, b in zip(jax.tree.leaves(tree), before)), (
        "shard_tree changed the caller's tree"
    )
    leaves = jax.tree.leaves(placed)
    order = [id(a) for a in before]
    for original, spec in expected:
        arr = leaves[order.index(id(original))]
        assert arr.sharding.is_equivalent_to(
            NamedSharding(mesh, spec), arr.ndim
        ), (container, spec)
        np.testing.assert_array_equal(arr, original)
