"""Tests for Stable Log-Sum-Exp."""

import math

import jax
import jax.numpy as jnp
import numpy as np


def test_large_and_small_inputs_do_not_overflow(impl):
    out = impl.logsumexp(jnp.array([1000.0, 1000.0]))
    np.testing.assert_allclose(out, 1000.0 + math.log(2.0), rtol=1e-6)
    out = impl.logsumexp(jnp.array([-1000.0, -1000.0]))
    np.testing.assert_allclose(out, -1000.0 + math.log(2.0), rtol=1e-6)
    out = impl.logsumexp(jnp.array([1000.0, 0.0, -1000.0]))
    np.testing.assert_allclose(out, 1000.0, rtol=1e-6)
    assert out.shape == () and out.dtype == jnp.float32


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


def test_minus_inf_entries(impl):
    x = jnp.array([[0.0, -jnp.inf, 0.0], [-jnp.inf, -jnp.inf, -jnp.inf]])
    out = impl.logsumexp(x, axis=1)
    assert not np.any(np.isnan(out))
    np.testing.assert_allclose(out[0], math.log(2.0), rtol=1e-6)
    assert out[1] == -np.inf


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
