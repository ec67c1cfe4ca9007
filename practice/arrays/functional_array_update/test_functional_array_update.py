"""Tests for Functional Array Update."""

import hypothesis.extra.numpy as hnp
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import example, given, strategies as st

DTYPES = [jnp.int32, jnp.float32, jnp.bfloat16, jnp.float16]
BORDER_SHAPES = [(1, 1), (1, 4), (4, 1), (3, 5)]
ROW_SHAPES = [(5,), (1, 3), (4, 3), (5, 2, 3)]


def np_set_border(x, value):
    out = np.array(x, copy=True)
    out[0, :] = value
    out[-1, :] = value
    out[:, 0] = value
    out[:, -1] = value
    return out


def small_ints(shape):
    """Integer-valued arrays: exact in every dtype of DTYPES."""
    return hnp.arrays(np.int32, shape, elements=st.integers(-100, 100))


@st.composite
def border_cases(draw):
    shape = draw(st.sampled_from(BORDER_SHAPES))
    return draw(small_ints(shape)), draw(st.sampled_from(DTYPES))


@st.composite
def swap_cases(draw):
    shape = draw(st.sampled_from(ROW_SHAPES))
    x = draw(small_ints(shape))
    i = draw(st.integers(0, shape[0] - 1))
    j = draw(st.integers(0, shape[0] - 1))
    return x, draw(st.sampled_from(DTYPES)), i, j


@st.composite
def scatter_cases(draw):
    """n bins, indices in [-3, n + 3), integer-valued float32 weights."""
    n = draw(st.sampled_from([1, 3, 7]))
    m = draw(st.sampled_from([1, 6, 13]))
    indices = draw(hnp.arrays(np.int32, m, elements=st.integers(-3, n + 2)))
    weights = draw(
        hnp.arrays(np.float32, m, elements=st.integers(-50, 50).map(float))
    )
    return n, indices, weights


def bincount(n, indices, weights):
    """The oracle: a float64 loop over the weights."""
    out = np.zeros(n)
    for k, w in zip(indices, weights):
        if 0 <= k < n:
            out[k] += w
    return out


@pytest.mark.requirement(1, 2)
@given(border_cases(), st.integers(-9, 9))
@example((np.arange(4, dtype=np.int32).reshape(1, 4), jnp.int32), 9)
@example((np.arange(4, dtype=np.int32).reshape(4, 1), jnp.float32), -1)
@example((np.arange(4, dtype=np.int32).reshape(2, 2), jnp.int32), 7)
def test_set_border_matches_numpy(impl, case, value):
    x, dtype = case
    value = value if dtype == jnp.int32 else float(value)
    out = impl.set_border(jnp.asarray(x, dtype), value)
    assert out.dtype == dtype
    np.testing.assert_array_equal(
        np.asarray(out, np.float64), np_set_border(x, value)
    )


@pytest.mark.requirement(1, 2)
def test_set_border_values(impl):
    x = jnp.arange(20.0).reshape(4, 5)
    out = impl.set_border(x, -1.0)
    expected = np.array(
        [
            [-1, -1, -1, -1, -1],
            [-1, 6, 7, 8, -1],
            [-1, 11, 12, 13, -1],
            [-1, -1, -1, -1, -1],
        ],
        dtype=np.float32,
    )
    np.testing.assert_array_equal(out, expected)
    assert out.dtype == jnp.float32


@pytest.mark.requirement(2)
def test_set_border_leaves_input_unchanged(impl):
    x = jnp.arange(12).reshape(3, 4)
    before = np.asarray(x).copy()
    out = impl.set_border(x, 0)
    np.testing.assert_array_equal(x, before)
    assert out.dtype == x.dtype


@pytest.mark.requirement(1, 2)
def test_set_border_thin_and_random_shapes(impl):
    rng = np.random.default_rng(0)
    for shape in [(1, 1), (1, 4), (4, 1), (2, 2), (3, 7), (6, 3)]:
        x = rng.integers(-50, 50, size=shape).astype(np.int32)
        out = impl.set_border(jnp.asarray(x), 9)
        np.testing.assert_array_equal(
            out, np_set_border(x, 9), err_msg=str(shape)
        )
        assert out.dtype == jnp.int32


@pytest.mark.requirement(3)
def test_set_border_jits(impl):
    x = jnp.ones((3, 3))
    out = jax.jit(impl.set_border)(x, 5.0)
    np.testing.assert_array_equal(out, [[5, 5, 5], [5, 1, 5], [5, 5, 5]])


@pytest.mark.requirement(4, 5)
@given(swap_cases())
@example((np.arange(6, dtype=np.int32).reshape(3, 2), jnp.int32, 1, 1))
@example((np.arange(5, dtype=np.int32), jnp.bfloat16, 0, 4))
def test_swap_rows_matches_numpy(impl, case):
    x, dtype, i, j = case
    expected = x.copy()
    expected[[i, j]] = expected[[j, i]]
    out = impl.swap_rows(jnp.asarray(x, dtype), i, j)
    assert out.dtype == dtype
    np.testing.assert_array_equal(np.asarray(out, np.float64), expected)


@pytest.mark.requirement(6)
@given(swap_cases())
def test_swap_rows_traced_matches_numpy(impl, case):
    x, dtype, i, j = case
    expected = x.copy()
    expected[[i, j]] = expected[[j, i]]
    out = jax.jit(impl.swap_rows)(
        jnp.asarray(x, dtype), jnp.int32(i), jnp.int32(j)
    )
    np.testing.assert_array_equal(np.asarray(out, np.float64), expected)


@pytest.mark.requirement(4)
def test_swap_rows_values(impl):
    x = jnp.arange(12).reshape(4, 3)
    out = impl.swap_rows(x, 0, 2)
    np.testing.assert_array_equal(
        out, [[6, 7, 8], [3, 4, 5], [0, 1, 2], [9, 10, 11]]
    )
    np.testing.assert_array_equal(
        x, np.arange(12).reshape(4, 3)
    )  # input untouched


@pytest.mark.requirement(4, 5)
def test_swap_rows_same_index_and_higher_rank(impl):
    rng = np.random.default_rng(1)
    x = jnp.asarray(rng.normal(size=(5, 2, 3)).astype(np.float32))
    np.testing.assert_array_equal(impl.swap_rows(x, 3, 3), x)
    expected = np.asarray(x)[[0, 4, 2, 3, 1]]
    np.testing.assert_array_equal(impl.swap_rows(x, 4, 1), expected)


@pytest.mark.requirement(6)
def test_swap_rows_traced_indices(impl):
    x = jnp.arange(10.0).reshape(5, 2)
    swap = jax.jit(impl.swap_rows)
    for i, j in [(0, 4), (2, 1), (3, 3)]:
        expected = np.arange(10.0).reshape(5, 2)
        expected[[i, j]] = expected[[j, i]]
        np.testing.assert_array_equal(
            swap(x, jnp.int32(i), jnp.int32(j)), expected
        )


@pytest.mark.requirement(7, 8, 9, 11)
@given(scatter_cases())
@example((3, np.array([2, 2, 0], np.int32), np.float32([1, 2, 4])))
@example((3, np.array([-1, 1], np.int32), np.float32([8, 1])))
@example((1, np.array([1, 0], np.int32), np.float32([8, 1])))
def test_scatter_add_matches_loop(impl, case):
    n, indices, weights = case
    out = impl.scatter_add(n, jnp.asarray(indices), jnp.asarray(weights))
    assert out.shape == (n,) and out.dtype == jnp.float32
    np.testing.assert_allclose(out, bincount(n, indices, weights))


@pytest.mark.requirement(7, 8, 9, 11)
@given(scatter_cases(), st.sampled_from(["int32", "float32"]))
@example(
    (3, np.int32([0, 2, 2, -1, 5]), np.float32([1, 10, 20, 100, 100])), "int32"
)
@example((1, np.int32([0, 0]), np.float32([2**24, 1])), "int32")
def test_scatter_add_keeps_the_dtype_of_weights(impl, case, dtype):
    """int32 weights (the statement's example) give exact int32 bins."""
    n, indices, weights = case
    weights = np.round(np.clip(weights, -1e6, 1e6)).astype(dtype)
    out = impl.scatter_add(n, jnp.asarray(indices), jnp.asarray(weights))
    assert out.shape == (n,) and out.dtype == dtype
    want = np.zeros(n, np.int64)
    for i, w in zip(indices, weights.astype(np.int64)):
        if 0 <= i < n:
            want[i] += w
    np.testing.assert_array_equal(out, want.astype(dtype))


@st.composite
def int32_scatter_cases(draw):
    """int32 weights up to 2**27 in size: bins past 2**24 (where float32
    rounds) that still fit in int32 (at most 13 weights)."""
    n, indices, _ = draw(scatter_cases())
    big = st.integers(-(2**27), 2**27)
    weights = draw(hnp.arrays(np.int32, len(indices), elements=big))
    return n, indices, weights


@pytest.mark.requirement(11)
@given(int32_scatter_cases())
@example((1, np.int32([0, 0]), np.int32([2**24, 1])))
@example((2, np.int32([0, 0, 1]), np.int32([2**24 + 1, 2, -(2**25) - 1])))
def test_scatter_add_int32_bins_are_exact(impl, case):
    """int32 weights give int32 bins holding the exact integer sums."""
    n, indices, weights = case
    out = impl.scatter_add(n, jnp.asarray(indices), jnp.asarray(weights))
    assert out.shape == (n,) and out.dtype == jnp.int32
    want = np.zeros(n, np.int64)
    for i, w in zip(indices, weights.astype(np.int64)):
        if 0 <= i < n:
            want[i] += w
    np.testing.assert_array_equal(np.asarray(out, np.int64), want)


@pytest.mark.requirement(10)
@given(scatter_cases(), st.sampled_from([np.inf, -np.inf, np.nan]))
@example((3, np.array([-1, 1, 3], np.int32), np.float32([1, 2, 4])), np.inf)
def test_scatter_add_ignored_weights_do_not_leak(impl, case, bad):
    n, indices, weights = case
    weights = np.where((indices < 0) | (indices >= n), bad, weights)
    out = impl.scatter_add(n, jnp.asarray(indices), jnp.asarray(weights))
    np.testing.assert_allclose(out, bincount(n, indices, weights))


@pytest.mark.requirement(7, 11)
def test_scatter_add_repeated_indices(impl):
    indices = jnp.array([0, 2, 2, 2, 1, 0], dtype=jnp.int32)
    weights = jnp.array([1.0, 10.0, 20.0, 30.0, 5.0, 2.0])
    out = impl.scatter_add(4, indices, weights)
    np.testing.assert_allclose(out, [3.0, 5.0, 60.0, 0.0])
    assert out.shape == (4,) and out.dtype == jnp.float32


@pytest.mark.requirement(8, 9)
def test_scatter_add_ignores_out_of_range(impl):
    indices = jnp.array([-1, 0, 3, 4, 7, -4, 1], dtype=jnp.int32)
    weights = jnp.array([100.0, 1.0, 2.0, 300.0, 400.0, 500.0, 4.0])
    np.testing.assert_allclose(
        impl.scatter_add(4, indices, weights), [1.0, 4.0, 0.0, 2.0]
    )


@pytest.mark.requirement(7, 8, 9, 12)
def test_scatter_add_random_matches_numpy(impl):
    rng = np.random.default_rng(2)
    n = 7
    indices = rng.integers(-3, n + 3, size=200).astype(np.int32)
    weights = rng.normal(size=200).astype(np.float32)
    valid = (indices >= 0) & (indices < n)
    expected = np.bincount(indices[valid], weights=weights[valid], minlength=n)
    out = jax.jit(lambda i, w: impl.scatter_add(n, i, w))(
        jnp.asarray(indices), jnp.asarray(weights)
    )
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)
