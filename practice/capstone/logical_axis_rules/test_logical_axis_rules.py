"""Tests for Logical Axis Rules to PartitionSpecs (no device work)."""

import math

import pytest
from hypothesis import example, given, strategies as st
from jax.sharding import PartitionSpec as P

NAMES = ["batch", "embed", "mlp", "heads", "Embed"]
TARGETS = [None, "data", "model", "pod", ("data", "model"), ("model", "pod")]
MESH = {"data": 4, "model": 2}


def oracle(names, rules, shape=None, mesh_shape=None):
    """Written apart from any solution: rule by rule, the axes settled so
    far as a dict, the mesh axes they take as a set, each check spelled
    out."""
    settled = {}  # axis -> (rule index, target)
    for j, (name, target) in enumerate(rules):
        axes = [i for i, n in enumerate(names) if n == name]
        if not axes or axes[0] in settled:
            continue
        i = axes[0]
        taken = set()
        for _, t in settled.values():
            taken |= set(
                t if isinstance(t, tuple) else () if t is None else (t,)
            )
        mine = set(
            target
            if isinstance(target, tuple)
            else ()
            if target is None
            else (target,)
        )
        if mine & taken:
            continue
        if shape is not None:
            if not mine <= set(mesh_shape):
                continue
            if shape[i] % math.prod(mesh_shape[a] for a in mine):
                continue
        settled[i] = (j, target)
    return P(
        *(settled[i][1] if i in settled else None for i in range(len(names)))
    )


names_st = st.lists(st.sampled_from(NAMES + [None]), max_size=4).filter(
    lambda ns: len([n for n in ns if n]) == len({n for n in ns if n})
)
rules_st = st.lists(
    st.tuples(st.sampled_from(NAMES[:4]), st.sampled_from(TARGETS)), max_size=8
)


@pytest.mark.requirement(1)
def test_hand_computed(impl):
    rules = [("batch", "data"), ("mlp", "model"), ("embed", None)]
    assert impl.logical_to_spec(("batch", "embed"), rules) == P("data", None)
    assert impl.logical_to_spec(("embed", "mlp"), rules) == P(None, "model")
    assert impl.logical_to_spec((None, "mlp", "vocab"), rules) == P(
        None, "model", None
    )
    assert impl.logical_to_spec(("Embed", "BATCH"), rules) == P(None, None)
    assert impl.logical_to_spec((), rules) == P()
    assert impl.logical_to_spec(("batch",), []) == P(None)
    spec = impl.logical_to_spec(("mlp",), rules)
    assert isinstance(spec, P) and len(spec) == 1


@pytest.mark.requirement(2)
def test_rule_order_wins_over_axis_order(impl):
    rules = [("mlp", "model"), ("heads", "model")]
    assert impl.logical_to_spec(("heads", "mlp"), rules) == P(None, "model")
    rules = [("heads", "model"), ("mlp", "model")]
    assert impl.logical_to_spec(("heads", "mlp"), rules) == P("model", None)


@pytest.mark.requirement(2)
def test_fallback_when_the_axis_is_taken(impl):
    rules = [("batch", "data"), ("embed", "data"), ("embed", "model")]
    assert impl.logical_to_spec(("batch", "embed"), rules) == P(
        "data", "model"
    )
    assert impl.logical_to_spec(("embed",), rules) == P("data")
    # the first rule that applies settles the axis: no later one overrides
    rules = [("embed", "model"), ("embed", "data"), ("batch", "data")]
    assert impl.logical_to_spec(("batch", "embed"), rules) == P(
        "data", "model"
    )


@pytest.mark.requirement(3)
def test_a_rule_to_none_settles_the_axis(impl):
    rules = [("embed", None), ("embed", "data")]
    assert impl.logical_to_spec(("embed",), rules) == P(None)
    rules = [("embed", "data"), ("embed", None)]
    assert impl.logical_to_spec(("embed",), rules) == P("data")
    rules = [
        ("batch", "data"),
        ("embed", "data"),
        ("embed", None),
        ("embed", "model"),
    ]
    assert impl.logical_to_spec(("batch", "embed"), rules) == P("data", None)


@pytest.mark.requirement(4)
def test_tuple_targets(impl):
    rules = [("batch", ("data", "model")), ("mlp", "model")]
    assert impl.logical_to_spec(("batch", "mlp"), rules) == P(
        ("data", "model"), None
    )
    rules = [("mlp", "model"), ("batch", ("data", "model")), ("batch", "data")]
    assert impl.logical_to_spec(("batch", "mlp"), rules) == P("data", "model")
    rules = [("mlp", "data"), ("batch", ("model", "data"))]
    assert impl.logical_to_spec(("batch", "mlp"), rules) == P(None, "data")


@pytest.mark.requirement(5)
def test_divisibility_and_missing_mesh_axes(impl):
    rules = [("vocab", "model"), ("vocab", "data"), ("embed", "data")]
    names = ("vocab", "embed")
    mesh = {"data": 4, "model": 3}
    assert impl.logical_to_spec(names, rules, (96, 64), mesh) == P(
        "model", "data"
    )
    assert impl.logical_to_spec(names, rules, (92, 64), mesh) == P(
        "data", None
    )
    assert impl.logical_to_spec(names, rules, (91, 64), mesh) == P(
        None, "data"
    )
    assert impl.logical_to_spec(names, rules, (91, 6), mesh) == P(None, None)
    # without a shape, nothing is checked
    assert impl.logical_to_spec(names, rules) == P("model", "data")
    rules = [("batch", "pod"), ("batch", ("data", "model"))]
    assert impl.logical_to_spec(("batch",), rules, (8,), MESH) == P(
        ("data", "model")
    )
    assert impl.logical_to_spec(("batch",), rules, (4,), MESH) == P(None)
    ones = {"data": 1, "model": 1}
    assert impl.logical_to_spec(("batch",), rules[1:], (1,), ones) == P(
        ("data", "model")
    )


@pytest.mark.requirement(6)
@pytest.mark.parametrize(
    "args",
    [
        (("embed", "embed"),),
        (("batch", None, "batch"),),
        (("mlp", "batch", "mlp"), (2, 4, 6), {"data": 2}),
        (("batch",), (8,), None),
        (("batch",), None, MESH),
        (("batch",), (8, 4), MESH),
        (("batch", "embed"), (8,), MESH),
    ],
)
def test_rejects(impl, args):
    names, *rest = args
    with pytest.raises(ValueError):
        impl.logical_to_spec(names, [("batch", "data")], *rest)


@pytest.mark.requirement(6)
def test_none_may_repeat(impl):
    assert impl.logical_to_spec((None, None), [("batch", "data")]) == P(
        None, None
    )


@pytest.mark.requirement(1, 2, 3, 4)
@given(names_st, rules_st)
@example(["heads", "mlp"], [("mlp", "model"), ("heads", "model")])
@example(["embed"], [("embed", None), ("embed", "data")])
@example(["batch", "mlp"], [("mlp", "model"), ("batch", ("data", "model"))])
@example(["Embed", None], [("embed", "data")])
def test_matches_brute_force(impl, names, rules):
    names = tuple(names)
    assert impl.logical_to_spec(names, rules) == oracle(names, rules)


@pytest.mark.requirement(5)
@given(
    names_st,
    rules_st,
    st.lists(st.sampled_from([1, 2, 3, 4, 6, 8, 12]), min_size=4, max_size=4),
    st.dictionaries(
        st.sampled_from(["data", "model", "pod"]), st.integers(1, 4)
    ),
)
@example(
    ["batch"], [("batch", "pod"), ("batch", "data")], [8, 1, 1, 1], {"data": 4}
)
@example(["mlp"], [("mlp", "model"), ("mlp", "data")], [6, 1, 1, 1], MESH)
def test_matches_brute_force_with_a_shape(
    impl, names, rules, dims, mesh_shape
):
    names, shape = tuple(names), tuple(dims[: len(names)])
    assert impl.logical_to_spec(names, rules, shape, mesh_shape) == oracle(
        names, rules, shape, mesh_shape
    )


RULES = [
    ("batch", "data"),
    ("embed", "data"),
    ("mlp", "model"),
    ("heads", "model"),
]


@pytest.mark.requirement(7)
def test_tree_specs_keeps_every_container(impl):
    logical = {
        "embed": ("vocab", "embed"),
        "layers": [
            {"up": ("embed", "mlp"), "scale": ("embed",)},
            ("heads", None, "embed"),
        ],
        "pair": (("batch",), ("mlp", "embed")),
        "step": (),
    }
    expected = {
        "embed": P(None, "data"),
        "layers": [
            {"up": P("data", "model"), "scale": P("data")},
            P("model", None, "data"),
        ],
        "pair": (P("data"), P("model", "data")),
        "step": P(),
    }
    assert impl.tree_specs(logical, RULES) == expected
    assert impl.tree_specs([], RULES) == []
    assert impl.tree_specs(("batch", "mlp"), RULES) == P("data", "model")


@pytest.mark.requirement(7)
@given(
    st.dictionaries(st.sampled_from(NAMES), names_st.map(tuple), max_size=4)
)
def test_tree_specs_matches_brute_force(impl, logical):
    tree = {"a": logical, "b": [logical, ()]}
    got = impl.tree_specs(tree, RULES)
    want = {k: oracle(v, RULES) for k, v in logical.items()}
    assert got == {"a": want, "b": [want, P()]}
