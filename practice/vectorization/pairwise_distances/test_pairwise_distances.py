"""Tests for Pairwise Distances with Nested vmap."""

import hypothesis.extra.numpy as hnp
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import example, given, strategies as st

from practice._testing import normal


def np_distances(xs, ys):
    xs, ys = np.asarray(xs, np.float64), np.asarray(ys, np.float64)
    return np.array([[np.sqrt(np.sum((x - y) ** 2)) for y in ys] for x in xs])


def floats(shape, bound=10.0):
    """float32 entries in [-bound, bound]; no subnormals, whose squares the
    statement's float32 distances do not resolve."""
    elements = st.floats(-bound, bound, width=32, allow_subnormal=False)
    return hnp.arrays(np.float32, shape, elements=elements)


@st.composite
def point_pairs(draw):
    """x and y = x + delta: equal points, tiny (1e-6) and ordinary gaps. Each
    delta entry is 0 or at least 1e-6 * 1e-6: distances below about 1e-19
    are not promised."""
    d = draw(st.sampled_from([1, 3, 8]))
    x = draw(floats(d, 2.0))
    scale = draw(st.sampled_from([0.0, 1e-6, 1.0]))
    unit = st.floats(-1, 1, width=32).filter(
        lambda v: v == 0 or abs(v) >= 1e-6
    )
    delta = draw(hnp.arrays(np.float32, d, elements=unit))
    y = np.float32(x + scale * delta)
    return x, y


@pytest.mark.requirement(1, 2, 3)
@given(point_pairs())
@example((np.float32([1, 2, 3]), np.float32([1, 2, 3])))
@example((np.float32([0.5, -1]), np.float32([0.5 + 2e-6, -1 - 1e-6])))
@example((np.float32([1]), np.float32([1 + 2**-22])))  # 2.4e-7 apart
@example((np.float32([1, 1]), np.float32([0, 0])))
@example((np.float32([0]), np.float32([2e-19])))  # squared: 4e-38, normal
def test_euclidean_matches_float64(impl, case):
    x, y = case
    out = impl.euclidean(jnp.asarray(x), jnp.asarray(y))
    assert out.shape == () and out.dtype == jnp.float32
    diff = x.astype(np.float64) - y
    norm = np.linalg.norm(diff)
    np.testing.assert_allclose(out, norm, rtol=1e-5, atol=0)
    grad = jax.jit(jax.grad(impl.euclidean, argnums=(0, 1)))
    gx, gy = grad(jnp.asarray(x), jnp.asarray(y))
    unit = diff / norm if norm > 0 else np.zeros_like(diff)
    np.testing.assert_allclose(gx, unit, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(gy, -unit, rtol=1e-4, atol=1e-6)


def resolved(case):
    """Every two points of xs and ys are equal or at least 1e-18 apart: the
    statement promises nothing below about 1e-19, where squares underflow."""
    p = np.concatenate(case).astype(np.float64)
    gaps = np.linalg.norm(p[:, None] - p[None], axis=-1)
    return not np.any((gaps > 0) & (gaps < 1e-18))


@st.composite
def row_sets(draw):
    """xs (N, D), ys (M, D), N and M of 1 (both at once too) included; ys
    repeats a row of xs."""
    n, m = draw(st.sampled_from([(1, 1), (1, 3), (2, 1), (4, 3), (3, 3)]))
    d = draw(st.sampled_from([1, 3]))
    xs, ys = draw(floats((n, d))), draw(floats((m, d)))
    ys[0] = xs[-1]  # a zero distance
    return xs, ys


@pytest.mark.requirement(4)
@given(row_sets())
@example((np.float32([[1, 2]]), np.float32([[1, 2]])))  # N = M = 1
@example((np.float32([[1], [2], [3]]), np.float32([[3]])))  # M = 1, D = 1
@example(
    (np.float32([[3, 1, 2]]), np.float32([[3, 1, 2], [0, 0, 1]]))
)  # N = 1
def test_pairwise_matches_a_loop(impl, case):
    xs, ys = case
    metric = lambda x, y: x[0] - 2 * y[-1] + jnp.dot(x, y)
    out = impl.pairwise(metric, xs, ys)
    assert out.shape == (len(xs), len(ys))
    expected = [
        [x[0] - 2 * y[-1] + x.astype(np.float64) @ y for y in ys] for x in xs
    ]
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-4)


@pytest.mark.requirement(5)
@given(row_sets().filter(resolved), st.booleans())
@example((np.float32([[1, 2]]), np.float32([[1, 2]])), True)  # one duplicate
@example((np.float32([[1], [2], [3]]), np.float32([[3]])), False)
def test_distances_and_gradient_match_float64(impl, case, jit):
    xs, ys = case
    f = jax.jit(impl.pairwise_distances) if jit else impl.pairwise_distances
    out = f(xs, ys)
    assert out.shape == (len(xs), len(ys)) and out.dtype == jnp.float32
    np.testing.assert_allclose(out, np_distances(xs, ys), rtol=1e-5, atol=1e-5)
    points = np.concatenate([xs, ys])  # holds a duplicate point
    g = jax.grad(lambda a: impl.pairwise_distances(a, a).sum())(points)
    p = points.astype(np.float64)
    expected = [
        2
        * sum(
            (p[i] - p[j]) / np.linalg.norm(p[i] - p[j])
            for j in range(len(p))
            if np.any(p[i] != p[j])
        )
        + np.zeros(p.shape[1])
        for i in range(len(p))
    ]
    np.testing.assert_allclose(g, expected, rtol=1e-4, atol=1e-4)


@pytest.mark.requirement(6)
def test_program_does_not_grow_with_the_rows(impl):
    def size(n, m):
        xs, ys = normal(0, (n, 3), (m, 3))
        return len(jax.make_jaxpr(impl.pairwise_distances)(xs, ys).jaxpr.eqns)

    assert size(5, 4) == size(2, 3), "the program grows with N: a loop"


@pytest.mark.requirement(1)
def test_euclidean_hand_values(impl):
    np.testing.assert_allclose(
        impl.euclidean(jnp.array([0.0, 0.0]), jnp.array([3.0, 4.0])), 5.0
    )
    assert (
        float(impl.euclidean(jnp.array([1.0, 2.0]), jnp.array([1.0, 2.0])))
        == 0.0
    )


@pytest.mark.requirement(3)
def test_euclidean_gradient_is_zero_not_nan_at_equal_points(impl):
    x = jnp.array([1.0, -2.0, 0.5])
    gx, gy = jax.grad(impl.euclidean, argnums=(0, 1))(x, x)
    np.testing.assert_array_equal(gx, np.zeros(3))
    np.testing.assert_array_equal(gy, np.zeros(3))
    # Away from zero it is the unit vector (x - y) / ||x - y||.
    gx = jax.grad(impl.euclidean)(jnp.array([3.0, 4.0]), jnp.array([0.0, 0.0]))
    np.testing.assert_allclose(gx, [0.6, 0.8], rtol=1e-6)


@pytest.mark.requirement(5)
def test_pairwise_distances_match_numpy(impl):
    xs, ys = normal(0, (5, 3), (7, 3))
    out = impl.pairwise_distances(xs, ys)
    assert out.shape == (5, 7)
    np.testing.assert_allclose(out, np_distances(xs, ys), rtol=1e-5, atol=1e-6)


@pytest.mark.requirement(4)
def test_pairwise_orientation_with_asymmetric_metric(impl):
    xs = jnp.array([[1.0, 10.0], [2.0, 20.0]])
    ys = jnp.array([[3.0, 30.0], [4.0, 40.0], [5.0, 50.0]])
    out = impl.pairwise(lambda x, y: x[0] - y[1], xs, ys)
    expected = [[1 - 30, 1 - 40, 1 - 50], [2 - 30, 2 - 40, 2 - 50]]
    np.testing.assert_array_equal(out, expected)


@pytest.mark.requirement(4)
def test_pairwise_generic_metric_dot_product(impl):
    xs, ys = normal(1, (4, 6), (3, 6))
    np.testing.assert_allclose(
        impl.pairwise(jnp.dot, xs, ys),
        np.asarray(xs) @ np.asarray(ys).T,
        rtol=1e-5,
        atol=1e-6,
    )


@pytest.mark.requirement(1, 5)
def test_self_distances_symmetric_zero_diagonal(impl):
    xs = normal(2, (6, 4))
    d = np.asarray(impl.pairwise_distances(xs, xs))
    np.testing.assert_array_equal(np.diag(d), np.zeros(6))
    np.testing.assert_allclose(d, d.T, rtol=1e-6)


@pytest.mark.requirement(3, 5)
def test_gradient_of_self_distances_is_finite_and_correct(impl):
    xs = normal(3, (4, 3))
    g = jax.grad(lambda a: impl.pairwise_distances(a, a).sum())(xs)
    assert np.all(np.isfinite(g))
    # d/dx_i sum_{j,k} ||x_j - x_k|| = 2 * sum_{j != i} (x_i - x_j) / ||x_i - x_j||
    x = np.asarray(xs, np.float64)
    expected = np.array(
        [
            2
            * sum(
                (x[i] - x[j]) / np.linalg.norm(x[i] - x[j])
                for j in range(4)
                if j != i
            )
            for i in range(4)
        ]
    )
    np.testing.assert_allclose(g, expected, rtol=1e-4, atol=1e-5)


@pytest.mark.requirement(5)
def test_under_jit(impl):
    xs, ys = normal(4, (3, 2), (2, 2))
    np.testing.assert_allclose(
        jax.jit(impl.pairwise_distances)(xs, ys),
        np_distances(xs, ys),
        rtol=1e-5,
        atol=1e-6,
    )
