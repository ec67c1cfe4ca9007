"""Tests for Functional Array Update."""

import jax
import jax.numpy as jnp
import numpy as np


def np_set_border(x, value):
    out = np.array(x, copy=True)
    out[0, :] = value
    out[-1, :] = value
    out[:, 0] = value
    out[:, -1] = value
    return out


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


def test_set_border_leaves_input_unchanged(impl):
    x = jnp.arange(12).reshape(3, 4)
    before = np.asarray(x).copy()
    out = impl.set_border(x, 0)
    np.testing.assert_array_equal(x, before)
    assert out.dtype == x.dtype


def test_set_border_thin_and_random_shapes(impl):
    rng = np.random.default_rng(0)
    for shape in [(1, 1), (1, 4), (4, 1), (2, 2), (3, 7), (6, 3)]:
        x = rng.integers(-50, 50, size=shape).astype(np.int32)
        out = impl.set_border(jnp.asarray(x), 9)
        np.testing.assert_array_equal(
            out, np_set_border(x, 9), err_msg=str(shape)
        )
        assert out.dtype == jnp.int32


def test_set_border_jits(impl):
    x = jnp.ones((3, 3))
    out = jax.jit(impl.set_border)(x, 5.0)
    np.testing.assert_array_equal(out, [[5, 5, 5], [5, 1, 5], [5, 5, 5]])


def test_swap_rows_values(impl):
    x = jnp.arange(12).reshape(4, 3)
    out = impl.swap_rows(x, 0, 2)
    np.testing.assert_array_equal(
        out, [[6, 7, 8], [3, 4, 5], [0, 1, 2], [9, 10, 11]]
    )
    np.testing.assert_array_equal(
        x, np.arange(12).reshape(4, 3)
    )  # input untouched


def test_swap_rows_same_index_and_higher_rank(impl):
    rng = np.random.default_rng(1)
    x = jnp.asarray(rng.normal(size=(5, 2, 3)).astype(np.float32))
    np.testing.assert_array_equal(impl.swap_rows(x, 3, 3), x)
    expected = np.asarray(x)[[0, 4, 2, 3, 1]]
    np.testing.assert_array_equal(impl.swap_rows(x, 4, 1), expected)


def test_swap_rows_traced_indices(impl):
    x = jnp.arange(10.0).reshape(5, 2)
    swap = jax.jit(impl.swap_rows)
    for i, j in [(0, 4), (2, 1), (3, 3)]:
        expected = np.arange(10.0).reshape(5, 2)
        expected[[i, j]] = expected[[j, i]]
        np.testing.assert_array_equal(
            swap(x, jnp.int32(i), jnp.int32(j)), expected
        )


def test_scatter_add_repeated_indices(impl):
    indices = jnp.array([0, 2, 2, 2, 1, 0], dtype=jnp.int32)
    weights = jnp.array([1.0, 10.0, 20.0, 30.0, 5.0, 2.0])
    out = impl.scatter_add(4, indices, weights)
    np.testing.assert_allclose(out, [3.0, 5.0, 60.0, 0.0])
    assert out.shape == (4,) and out.dtype == jnp.float32


def test_scatter_add_ignores_out_of_range(impl):
    indices = jnp.array([-1, 0, 3, 4, 7, -4, 1], dtype=jnp.int32)
    weights = jnp.array([100.0, 1.0, 2.0, 300.0, 400.0, 500.0, 4.0])
    np.testing.assert_allclose(
        impl.scatter_add(4, indices, weights), [1.0, 4.0, 0.0, 2.0]
    )


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
