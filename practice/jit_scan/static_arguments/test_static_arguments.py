"""Tests for Static Arguments in jit.

Traces are counted with a jax.monitoring listener: JAX reports one
'/jax/core/compile/jaxpr_trace_duration' event each time a jitted function is traced.
"""

import contextlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import example, given, strategies as st
from hypothesis.extra import numpy as hnp

TRACE_EVENT = "/jax/core/compile/jaxpr_trace_duration"
_counting: list[list[str]] = []


def _listener(event, duration, **kwargs):
    for events in _counting:
        events.append(event)


jax.monitoring.register_event_duration_secs_listener(_listener)


@contextlib.contextmanager
def count_traces():
    """Yield a list that collects monitoring events; count traces with .count(TRACE_EVENT)."""
    events: list[str] = []
    _counting.append(events)
    try:
        yield events
    finally:
        _counting.remove(events)


@pytest.mark.requirement(1, 2)
def test_poly_features_values(impl):
    x = jnp.array([0.0, 1.0, 2.0, -3.0])
    out = impl.poly_features(x, 3)
    expected = [[1, 0, 0, 0], [1, 1, 1, 1], [1, 2, 4, 8], [1, -3, 9, -27]]
    np.testing.assert_allclose(out, expected)
    assert out.shape == (4, 4) and out.dtype == jnp.float32
    np.testing.assert_allclose(
        impl.poly_features(x, degree=0), np.ones((4, 1))
    )


@pytest.mark.requirement(1)
def test_poly_features_matches_vander(impl):
    rng = np.random.default_rng(0)
    x = rng.uniform(-2.0, 2.0, size=7).astype(np.float32)
    for degree in [1, 2, 5]:
        np.testing.assert_allclose(
            impl.poly_features(jnp.asarray(x), degree),
            np.vander(x.astype(np.float64), degree + 1, increasing=True),
            rtol=1e-5,
            atol=1e-6,
        )


@pytest.mark.requirement(2)
def test_poly_features_is_jitted_with_static_degree(impl):
    assert hasattr(impl.poly_features, "lower"), (
        "poly_features must be the result of jax.jit"
    )
    # Lowering with a plain int works only if degree is static (a traced degree has no shape).
    impl.poly_features.lower(jnp.ones(3), 2)


@pytest.mark.requirement(3)
def test_poly_features_retraces_only_for_a_new_degree(impl):
    rng = np.random.default_rng(1)
    xs = [rng.normal(size=6).astype(np.float32) for _ in range(4)]
    impl.poly_features(xs[0], 3)  # warm up: compile degree 3
    with count_traces() as events:
        for x in xs[1:]:
            impl.poly_features(x, 3)
    assert events.count(TRACE_EVENT) == 0, (
        "new values with the same degree retraced"
    )
    with count_traces() as events:
        impl.poly_features(xs[0], 4)
    assert events.count(TRACE_EVENT) == 1, (
        "a new degree should trace exactly once"
    )
    with count_traces() as events:
        impl.poly_features(xs[1], 4)
        impl.poly_features(xs[2], 3)
    assert events.count(TRACE_EVENT) == 0, (
        "degrees seen before must reuse their compiled version"
    )


@pytest.mark.requirement(4, 5)
def test_normalize_rows_values(impl):
    x = jnp.array([[3.0, -4.0], [0.0, 0.0], [1.0, 1.0]])
    np.testing.assert_allclose(
        impl.normalize_rows(x, "l2"),
        [[0.6, -0.8], [0, 0], [2**-0.5] * 2],
        rtol=1e-6,
    )
    np.testing.assert_allclose(
        impl.normalize_rows(x, "l1"),
        [[3 / 7, -4 / 7], [0, 0], [0.5, 0.5]],
        rtol=1e-6,
    )
    np.testing.assert_allclose(
        impl.normalize_rows(x, kind="max"),
        [[0.75, -1.0], [0, 0], [1, 1]],
        rtol=1e-6,
    )


@pytest.mark.requirement(4)
def test_normalize_rows_random_against_numpy(impl):
    rng = np.random.default_rng(2)
    x = rng.normal(size=(5, 4)).astype(np.float32)
    norms = {
        "l1": np.abs(x).sum(1),
        "l2": np.sqrt((x**2).sum(1)),
        "max": np.abs(x).max(1),
    }
    for kind, n in norms.items():
        out = impl.normalize_rows(jnp.asarray(x), kind)
        assert out.shape == (5, 4) and out.dtype == jnp.float32
        np.testing.assert_allclose(
            out, x / n[:, None], rtol=1e-5, err_msg=kind
        )


@pytest.mark.requirement(6)
@pytest.mark.parametrize(
    "kind",
    ["l3", "L1", "L2", "MAX", "Max", " l2", "l2 ", "", "linf", "l-2"]
    + ["max ", "maximum", "min", "n", "z", "l1x"],  # sorting after the names
)
def test_normalize_rows_unknown_kind(impl, kind):
    """Only the three exact names: case variants and spaces are unknown."""
    with pytest.raises(ValueError):
        impl.normalize_rows(jnp.ones((2, 2)), kind)


@pytest.mark.requirement(6)
@given(kind=st.text(max_size=8).filter(lambda k: k not in ("l1", "l2", "max")))
@example(kind="max\0")
@example(kind="l1\n")
@example(kind="\u217c1")  # a small roman numeral fifty, then 1
def test_property_any_other_kind_raises(impl, kind):
    """Every string but the three names, whatever it sorts before or after."""
    with pytest.raises(ValueError):
        impl.normalize_rows(jnp.ones((2, 2)), kind)


@pytest.mark.requirement(4)
@pytest.mark.parametrize("name", ["l1", "l2", "max"])
def test_kind_compared_by_value(impl, name):
    """A name built at run time (another str object, equal to the literal) selects its norm;
    the shape (3, 7) is used by no other test, so this call traces with that object."""
    kind = "".join(list(name))
    assert kind == name and kind is not name
    x = np.random.default_rng(11).normal(size=(3, 7)).astype(np.float32)
    np.testing.assert_allclose(
        impl.normalize_rows(x, kind), normalized_rows(x, name), rtol=1e-5
    )


@pytest.mark.requirement(7)
def test_normalize_rows_is_jitted_and_caches_per_kind(impl):
    assert hasattr(impl.normalize_rows, "lower"), (
        "normalize_rows must be the result of jax.jit"
    )
    rng = np.random.default_rng(3)
    xs = [rng.normal(size=(3, 5)).astype(np.float32) for _ in range(3)]
    impl.normalize_rows(xs[0], "l1")
    with count_traces() as events:
        impl.normalize_rows(xs[1], "l1")
        impl.normalize_rows(xs[2], "l1")
    assert events.count(TRACE_EVENT) == 0
    with count_traces() as events:
        impl.normalize_rows(xs[1], "max")
    assert events.count(TRACE_EVENT) == 1


# 0, or a magnitude in [1e-3, 1e3] with either sign (the squares of smaller
# entries underflow in float32)
ENTRIES = st.just(0.0) | st.floats(2**-10, 1e3, width=32).flatmap(
    lambda v: st.sampled_from([v, -v])
)


def normalized_rows(x, kind):
    """The oracle: each row of x (n, d) over its norm of ``kind``, in float64
    (a zero row stays zero). -> (n, d) float64."""
    x64 = np.abs(x.astype(np.float64))
    norms = {
        "l1": x64.sum(1),
        "l2": np.sqrt((x64**2).sum(1)),
        "max": x64.max(1),
    }[kind]
    return x / np.where(norms == 0, 1.0, norms)[:, None]


@pytest.mark.requirement(1, 2)
@given(
    x=st.sampled_from([1, 3, 7]).flatmap(
        lambda n: hnp.arrays(
            np.float32, n, elements=st.floats(-2, 2, width=32)
        )
    ),
    degree=st.sampled_from([0, 1, 4]),
    keyword=st.booleans(),
)
@example(x=np.array([0.0, -1.5, 2.0], np.float32), degree=4, keyword=True)
def test_property_poly_features_matches_vander(impl, x, degree, keyword):
    if keyword:
        out = impl.poly_features(x, degree=degree)
    else:
        out = impl.poly_features(x, degree)
    assert out.shape == (x.shape[0], degree + 1) and out.dtype == jnp.float32
    expected = np.vander(x.astype(np.float64), degree + 1, increasing=True)
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.requirement(4, 5)
@given(
    x=st.sampled_from([(1, 1), (3, 1), (1, 5), (4, 3)]).flatmap(
        lambda shape: hnp.arrays(np.float32, shape, elements=ENTRIES)
    ),
    kind=st.sampled_from(["l1", "l2", "max"]),
    data=st.data(),
)
@example(
    x=np.array([[-3.0, -1.0], [0.0, 0.0], [2.0, 2.0]], np.float32),
    kind="max",
    data=None,
)
def test_property_normalize_rows_matches_numpy(impl, x, kind, data):
    if data is not None:  # zero some whole rows
        zero = data.draw(hnp.arrays(np.bool_, x.shape[0]))
        x = np.where(zero[:, None], np.float32(0), x)
    expected = normalized_rows(x, kind)
    out = impl.normalize_rows(x, kind)
    assert out.shape == x.shape and out.dtype == jnp.float32
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-7)


@pytest.mark.requirement(4)
@given(
    x=st.sampled_from([(1, 1), (3, 1), (1, 5), (4, 3)]).flatmap(
        lambda shape: hnp.arrays(np.float32, shape, elements=ENTRIES)
    ),
    kind=st.sampled_from(["l1", "l2", "max"]),
    exponent=st.integers(-15, 15),
)
@example(x=np.float32([[1e-3, -1e-3, 2e-3]]), kind="l2", exponent=-15)
@example(x=np.float32([[1e-3, -1e-3, 2e-3]]), kind="l1", exponent=-15)
@example(x=np.float32([[1e3, -1e3, 1e3, 1e3, 1e3]]), kind="l2", exponent=15)
def test_normalize_rows_over_the_whole_promised_range(impl, x, kind, exponent):
    """Entries down to 1e-18 and up to 1e18: a result relative to the row."""
    x = x * np.float32(10.0**exponent)
    expected = normalized_rows(x, kind)
    out = impl.normalize_rows(x, kind)
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-7)
