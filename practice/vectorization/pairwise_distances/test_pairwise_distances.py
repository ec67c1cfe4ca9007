"""Tests for Pairwise Distances with Nested vmap."""

import jax
import jax.numpy as jnp
import numpy as np

from practice._testing import normal


def np_distances(xs, ys):
    xs, ys = np.asarray(xs, np.float64), np.asarray(ys, np.float64)
    return np.array([[np.sqrt(np.sum((x - y) ** 2)) for y in ys] for x in xs])


def test_euclidean_hand_values(impl):
    np.testing.assert_allclose(
        impl.euclidean(jnp.array([0.0, 0.0]), jnp.array([3.0, 4.0])), 5.0
    )
    assert (
        float(impl.euclidean(jnp.array([1.0, 2.0]), jnp.array([1.0, 2.0])))
        == 0.0
    )


def test_euclidean_gradient_is_zero_not_nan_at_equal_points(impl):
    x = jnp.array([1.0, -2.0, 0.5])
    gx, gy = jax.grad(impl.euclidean, argnums=(0, 1))(x, x)
    np.testing.assert_array_equal(gx, np.zeros(3))
    np.testing.assert_array_equal(gy, np.zeros(3))
    # Away from zero it is the unit vector (x - y) / ||x - y||.
    gx = jax.grad(impl.euclidean)(jnp.array([3.0, 4.0]), jnp.array([0.0, 0.0]))
    np.testing.assert_allclose(gx, [0.6, 0.8], rtol=1e-6)


def test_pairwise_distances_match_numpy(impl):
    xs, ys = normal(0, (5, 3), (7, 3))
    out = impl.pairwise_distances(xs, ys)
    assert out.shape == (5, 7)
    np.testing.assert_allclose(out, np_distances(xs, ys), rtol=1e-5, atol=1e-6)


def test_pairwise_orientation_with_asymmetric_metric(impl):
    xs = jnp.array([[1.0, 10.0], [2.0, 20.0]])
    ys = jnp.array([[3.0, 30.0], [4.0, 40.0], [5.0, 50.0]])
    out = impl.pairwise(lambda x, y: x[0] - y[1], xs, ys)
    expected = [[1 - 30, 1 - 40, 1 - 50], [2 - 30, 2 - 40, 2 - 50]]
    np.testing.assert_array_equal(out, expected)


def test_pairwise_generic_metric_dot_product(impl):
    xs, ys = normal(1, (4, 6), (3, 6))
    np.testing.assert_allclose(
        impl.pairwise(jnp.dot, xs, ys),
        np.asarray(xs) @ np.asarray(ys).T,
        rtol=1e-5,
        atol=1e-6,
    )


def test_self_distances_symmetric_zero_diagonal(impl):
    xs = normal(2, (6, 4))
    d = np.asarray(impl.pairwise_distances(xs, xs))
    np.testing.assert_array_equal(np.diag(d), np.zeros(6))
    np.testing.assert_allclose(d, d.T, rtol=1e-6)


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


def test_under_jit(impl):
    xs, ys = normal(4, (3, 2), (2, 2))
    np.testing.assert_allclose(
        jax.jit(impl.pairwise_distances)(xs, ys),
        np_distances(xs, ys),
        rtol=1e-5,
        atol=1e-6,
    )
