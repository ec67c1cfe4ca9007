"""Tests for Stable Log-Sum-Exp."""

import math

import hypothesis.extra.numpy as hnp
import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.special
from hypothesis import example, given, strategies as st

SHAPES = [(1,), (5,), (2, 2), (2, 1, 3), (1, 4, 2)]


@st.composite
def cases(draw, low=-3000.0, high=3000.0):
    """float32 x of a few shapes, an axis (None, an int or a pair), keepdims."""
    shape = draw(st.sampled_from(SHAPES))
    x = draw(
        hnp.arrays(
            np.float32,
            shape,
            elements=st.floats(low, high, width=32),
        )
    )
    ndim = len(shape)
    axis = draw(
        st.one_of(
            st.none(),
            st.integers(-ndim, ndim - 1),
            st.lists(
                st.integers(0, ndim - 1), min_size=2, max_size=2, unique=True
            ).map(tuple),
        )
        if ndim > 1
        else st.sampled_from([None, 0, -1])
    )
    return x, axis, draw(st.booleans())


def jitted(f):
    return jax.jit(f, static_argnames=("axis", "keepdims"))


@pytest.mark.requirement(1, 2)
@given(cases())
@example((np.float32([1000, 1000]), None, False))
@example((np.float32([-1000, -1000]), 0, True))
@example((np.float32([[[3000], [-3000]]]), (0, 2), False))
@example((np.zeros((2, 1, 3), np.float32), 0, False))
def test_matches_scipy_float64(impl, case):
    x, axis, keepdims = case
    out = jitted(impl.logsumexp)(jnp.asarray(x), axis=axis, keepdims=keepdims)
    expected = scipy.special.logsumexp(
        x.astype(np.float64), axis=axis, keepdims=keepdims
    )
    assert out.shape == np.shape(expected) and out.dtype == jnp.float32
    np.testing.assert_allclose(out, expected, rtol=1e-6, atol=1e-5)


@st.composite
def cases_with_minus_inf(draw):
    """cases() with -inf at random positions, whole slices included."""
    x, axis, keepdims = draw(cases())
    hidden = draw(hnp.arrays(np.bool_, x.shape))
    return np.where(hidden, -np.inf, x).astype(np.float32), axis, keepdims


@pytest.mark.requirement(3)
@given(cases_with_minus_inf())
@example((np.float32([[[-np.inf], [-np.inf], [3]]]), 0, False))
@example((np.float32([[0, -np.inf], [-np.inf, -np.inf]]), 1, True))
def test_minus_inf_entries_match_scipy(impl, case):
    x, axis, keepdims = case
    out = jitted(impl.logsumexp)(jnp.asarray(x), axis=axis, keepdims=keepdims)
    expected = scipy.special.logsumexp(
        x.astype(np.float64), axis=axis, keepdims=keepdims
    )
    np.testing.assert_allclose(out, expected, rtol=1e-6, atol=1e-5)


@pytest.mark.requirement(4)
@given(cases())
@example((np.float32([3000, 3000, -3000]), None, False))
def test_gradient_is_float64_softmax(impl, case):
    x, axis, _ = case
    loss = lambda x: jnp.sum(impl.logsumexp(x, axis=axis))
    grad = jax.jit(jax.grad(loss))(jnp.asarray(x))
    x64 = x.astype(np.float64)
    lse = scipy.special.logsumexp(x64, axis=axis, keepdims=True)
    np.testing.assert_allclose(grad, np.exp(x64 - lse), atol=1e-6)


@pytest.mark.requirement(5, 6)
@given(cases())
@example((np.float32([[[1000], [1000], [0]]]), 1, False))
@example((np.float32([3000, -3000]), 0, False))
def test_log_softmax_matches_scipy_float64(impl, case):
    x, axis, _ = case
    axis = axis if isinstance(axis, int) else -1
    log_softmax = jax.jit(impl.log_softmax, static_argnames="axis")
    out = log_softmax(jnp.asarray(x), axis=axis)
    expected = scipy.special.log_softmax(x.astype(np.float64), axis=axis)
    assert out.shape == x.shape and np.all(np.isfinite(out))
    np.testing.assert_allclose(out, expected, rtol=1e-6, atol=1e-3)


@pytest.mark.requirement(1, 2)
def test_large_and_small_inputs_do_not_overflow(impl):
    out = impl.logsumexp(jnp.array([1000.0, 1000.0]))
    np.testing.assert_allclose(out, 1000.0 + math.log(2.0), rtol=1e-6)
    out = impl.logsumexp(jnp.array([-1000.0, -1000.0]))
    np.testing.assert_allclose(out, -1000.0 + math.log(2.0), rtol=1e-6)
    out = impl.logsumexp(jnp.array([1000.0, 0.0, -1000.0]))
    np.testing.assert_allclose(out, 1000.0, rtol=1e-6)
    assert out.shape == () and out.dtype == jnp.float32


@pytest.mark.requirement(1)
def test_hand_computed_small_values(impl):
    # log(e^0 + e^0 + e^0 + e^0) = log 4; log(e^1 + e^2) = 2 + log(1 + e^-1)
    np.testing.assert_allclose(
        impl.logsumexp(jnp.zeros(4)), math.log(4.0), rtol=1e-6
    )
    np.testing.assert_allclose(
        impl.logsumexp(jnp.array([1.0, 2.0])),
        2.0 + math.log1p(math.exp(-1.0)),
        rtol=1e-6,
    )


@pytest.mark.requirement(3)
def test_minus_inf_entries(impl):
    x = jnp.array([[0.0, -jnp.inf, 0.0], [-jnp.inf, -jnp.inf, -jnp.inf]])
    out = impl.logsumexp(x, axis=1)
    assert not np.any(np.isnan(out))
    np.testing.assert_allclose(out[0], math.log(2.0), rtol=1e-6)
    assert out[1] == -np.inf


@pytest.mark.requirement(1, 2)
def test_matches_jax_nn_for_every_axis(impl):
    rng = np.random.default_rng(0)
    x = jnp.asarray(rng.normal(scale=30.0, size=(3, 4, 5)).astype(np.float32))
    cases = [
        (None, False),
        (None, True),
        (0, False),
        (1, True),
        (-1, False),
        (2, True),
        ((0, 2), False),
        ((1, 2), True),
    ]
    lse = jax.jit(impl.logsumexp, static_argnames=("axis", "keepdims"))
    oracle = jax.jit(jax.nn.logsumexp, static_argnames=("axis", "keepdims"))
    for axis, keepdims in cases:
        out = lse(x, axis=axis, keepdims=keepdims)
        expected = oracle(x, axis=axis, keepdims=keepdims)
        assert out.shape == expected.shape, (axis, keepdims)
        np.testing.assert_allclose(
            out,
            expected,
            rtol=1e-5,
            atol=1e-5,
            err_msg=f"axis={axis} keepdims={keepdims}",
        )


@pytest.mark.requirement(1)
def test_matches_float64_numpy_on_huge_values(impl):
    rng = np.random.default_rng(1)
    x = rng.uniform(-3000.0, 3000.0, size=(4, 6)).astype(np.float32)
    x64 = x.astype(np.float64)
    m = x64.max(axis=1, keepdims=True)
    expected = (np.log(np.exp(x64 - m).sum(axis=1, keepdims=True)) + m)[:, 0]
    out = jax.jit(impl.logsumexp, static_argnames=("axis", "keepdims"))(
        jnp.asarray(x), axis=1
    )
    np.testing.assert_allclose(out, expected, rtol=1e-6)


@pytest.mark.requirement(4)
def test_gradient_is_softmax_and_finite(impl):
    x = jnp.array([1000.0, 1000.0, 0.0])
    grad = jax.grad(impl.logsumexp)(x)
    np.testing.assert_allclose(grad, [0.5, 0.5, 0.0], atol=1e-6)
    y = jnp.array([[1.0, 2.0, 3.0], [-500.0, 0.0, 500.0]])
    grad = jax.grad(lambda y: impl.logsumexp(y, axis=1).sum())(y)
    y64 = np.asarray(y, np.float64)
    softmax = np.exp(y64 - y64.max(axis=1, keepdims=True))
    np.testing.assert_allclose(
        grad, softmax / softmax.sum(axis=1, keepdims=True), atol=1e-6
    )


@pytest.mark.requirement(5, 6)
def test_log_softmax(impl):
    rng = np.random.default_rng(2)
    x = jnp.asarray(rng.normal(scale=100.0, size=(5, 7)).astype(np.float32))
    log_softmax = jax.jit(impl.log_softmax, static_argnames="axis")
    oracle = jax.jit(jax.nn.log_softmax, static_argnames="axis")
    for axis in [0, 1, -1]:
        out = log_softmax(x, axis=axis)
        assert out.shape == x.shape
        assert np.all(np.isfinite(out))
        np.testing.assert_allclose(
            out, oracle(x, axis=axis), rtol=1e-5, atol=1e-4
        )
        np.testing.assert_allclose(jnp.exp(out).sum(axis=axis), 1.0, rtol=1e-5)
    np.testing.assert_allclose(
        impl.log_softmax(jnp.array([1000.0, 1000.0])),
        [-math.log(2.0)] * 2,
        atol=1e-4,
    )


@pytest.mark.requirement(5)
@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 5), (4, 1)])
def test_log_softmax_default_axis_is_the_last(impl, shape):
    x = np.random.default_rng(7).normal(size=shape).astype(np.float32)
    expected = scipy.special.log_softmax(x.astype(np.float64), axis=-1)
    out = impl.log_softmax(jnp.asarray(x))
    assert out.shape == shape
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)
