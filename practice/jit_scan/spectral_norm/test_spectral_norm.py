"""Tests for Spectral Norm by Power Iteration."""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import example, given, strategies as st

from practice._testing import compiled_lines


def random_matrix(seed, shape):
    return jnp.asarray(
        np.random.default_rng(seed).normal(size=shape).astype(np.float32)
    )


@pytest.mark.requirement(1, 3)
def test_diagonal_matrix(impl):
    w = jnp.diag(jnp.array([3.0, -7.0, 2.0]))
    sigma, u, v = impl.power_iteration(w, jax.random.key(0), n_iters=50)
    assert sigma.shape == () and sigma.dtype == jnp.float32
    np.testing.assert_allclose(sigma, 7.0, rtol=1e-5)
    # the top singular vectors are +-e_1, and w v = sigma u fixes their relative sign
    np.testing.assert_allclose(jnp.abs(v), [0.0, 1.0, 0.0], atol=1e-4)
    np.testing.assert_allclose(w @ v, sigma * u, atol=1e-4)


@pytest.mark.requirement(4)
def test_rank_one_matrix_is_exact_after_one_step(impl):
    a, b = jnp.array([1.0, 2.0, 2.0]), jnp.array([3.0, 0.0, 4.0, 0.0])
    sigma, _, _ = impl.power_iteration(
        jnp.outer(a, b), jax.random.key(1), n_iters=1
    )
    np.testing.assert_allclose(sigma, 3.0 * 5.0, rtol=1e-5)  # |a| |b|


@pytest.mark.requirement(2, 3)
def test_matches_jnp_linalg_norm(impl):
    for seed, shape in enumerate([(8, 5), (5, 8), (16, 16), (30, 3)]):
        w = random_matrix(seed, shape)
        s = np.linalg.svd(np.asarray(w, np.float64), compute_uv=False)
        assert s[1] / s[0] < 0.95, "fixture without a spectral gap"
        sigma, u, v = impl.power_iteration(
            w, jax.random.key(seed), n_iters=300
        )
        np.testing.assert_allclose(
            sigma, jnp.linalg.norm(w, ord=2), rtol=1e-4, err_msg=str(shape)
        )
        assert u.shape == (shape[0],) and v.shape == (shape[1],)


@pytest.mark.requirement(3)
def test_returns_a_singular_pair(impl):
    w = random_matrix(10, (6, 4))
    sigma, u, v = impl.power_iteration(w, jax.random.key(2), n_iters=300)
    np.testing.assert_allclose(jnp.linalg.norm(u), 1.0, rtol=1e-5)
    np.testing.assert_allclose(jnp.linalg.norm(v), 1.0, rtol=1e-5)
    np.testing.assert_allclose(w @ v, sigma * u, atol=1e-4)
    np.testing.assert_allclose(w.T @ u, sigma * v, atol=1e-3)


@pytest.mark.requirement(5)
def test_estimate_grows_towards_sigma_from_below(impl):
    w = random_matrix(11, (10, 7))
    true = float(jnp.linalg.norm(w, ord=2))
    estimates = [
        float(impl.power_iteration(w, jax.random.key(3), n_iters=k)[0])
        for k in [0, 1, 2, 5, 20]
    ]
    assert all(e <= true * (1 + 1e-5) for e in estimates)
    assert all(b >= a * (1 - 1e-5) for a, b in zip(estimates, estimates[1:]))
    assert (
        estimates[0] < 0.99 * true
    )  # a random start is not already converged


@pytest.mark.requirement(6)
def test_zero_matrix_gives_zero_without_nan(impl):
    sigma, u, v = impl.power_iteration(
        jnp.zeros((3, 4)), jax.random.key(4), n_iters=10
    )
    assert float(sigma) == 0.0
    assert not (np.any(np.isnan(u)) or np.any(np.isnan(v)))
    out = impl.spectral_normalize(
        jnp.zeros((3, 4)), jax.random.key(4), n_iters=10
    )
    np.testing.assert_array_equal(out, np.zeros((3, 4)))


@pytest.mark.requirement(7)
def test_spectral_normalize_under_jit(impl):
    w = 5.0 * random_matrix(12, (12, 9))
    f = jax.jit(impl.spectral_normalize, static_argnames="n_iters")
    out = f(w, jax.random.key(5), n_iters=300)
    assert out.shape == (12, 9) and out.dtype == jnp.float32
    np.testing.assert_allclose(jnp.linalg.norm(out, ord=2), 1.0, rtol=1e-4)
    np.testing.assert_allclose(
        out * jnp.linalg.norm(w, ord=2), w, rtol=1e-3, atol=1e-4
    )


@pytest.mark.requirement(8)
def test_program_does_not_grow_with_iterations(impl):
    w = jnp.ones((4, 3))

    def program_lines(n_iters):
        jaxpr = jax.make_jaxpr(
            lambda w, k: impl.power_iteration(w, k, n_iters)
        )(w, jax.random.key(0))
        return len(str(jaxpr).splitlines())

    assert program_lines(3) == program_lines(100), (
        "the traced program grows with n_iters"
    )


@pytest.mark.requirement(8)
def test_compiled_program_does_not_grow_with_iterations(impl):
    """Checked on what XLA compiles, not only on the jaxpr (unroll=True)."""
    lines = [
        compiled_lines(
            lambda w, k, n=n: impl.power_iteration(w, k, n),
            jnp.ones((4, 3)),
            jax.random.key(0),
        )
        for n in (3, 100)
    ]
    assert lines[0] == lines[1], f"compiled program grows: {lines}"


SHAPES = [(1, 1), (1, 5), (5, 1), (3, 3), (7, 4), (4, 7)]


@st.composite
def gapped_matrices(draw):
    """float32 (m, n) = U diag(s) V^T with s[1] <= 0.8 s[0], s[0] in 1e-3..1e3."""
    m, n = draw(st.sampled_from(SHAPES))
    k = min(m, n)
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    u = np.linalg.qr(rng.normal(size=(m, m)))[0][:, :k]
    v = np.linalg.qr(rng.normal(size=(n, n)))[0][:, :k]
    ratios = draw(st.lists(st.floats(0, 0.8), min_size=k - 1, max_size=k - 1))
    s = draw(st.sampled_from([1e-3, 1.0, 1e3])) * np.array(
        [1.0, *sorted(ratios, reverse=True)]
    )
    return ((u * s) @ v.T).astype(np.float32)


@functools.cache
def jitted(power_iteration):
    return jax.jit(power_iteration, static_argnames="n_iters")


def top_singular_value(w):
    """float64 SVD oracle."""
    return np.linalg.svd(np.asarray(w, np.float64), compute_uv=False)[0]


@pytest.mark.requirement(2, 3)
@given(w=gapped_matrices())
@example(w=np.diag([2.0, 1.0, 0.5]).astype(np.float32) * 1e-3)
@example(w=np.array([[3.0], [4.0]], np.float32))
def test_property_matches_svd(impl, w):
    sigma, u, v = jitted(impl.power_iteration)(
        jnp.asarray(w), jax.random.key(0), n_iters=100
    )
    assert sigma.shape == () and sigma.dtype == jnp.float32
    assert u.shape == (w.shape[0],) and v.shape == (w.shape[1],)
    true = top_singular_value(w)
    np.testing.assert_allclose(sigma, true, rtol=1e-4)
    np.testing.assert_allclose(np.linalg.norm(u), 1.0, rtol=1e-4)
    np.testing.assert_allclose(np.linalg.norm(v), 1.0, rtol=1e-4)
    np.testing.assert_allclose(w @ v, true * u, atol=1e-3 * true)
    np.testing.assert_allclose(w.T @ u, true * v, atol=1e-3 * true)


@pytest.mark.requirement(5)
@given(w=gapped_matrices(), seed=st.integers(0, 1000))
@example(w=np.diag([3.0, 1.0]).astype(np.float32), seed=0)
def test_property_start_vector_and_monotone_estimate(impl, w, seed):
    v0 = jax.random.normal(jax.random.key(seed), (w.shape[1],))
    v0 = np.asarray(v0, np.float64)
    start = np.linalg.norm(w @ (v0 / np.linalg.norm(v0)))
    true = top_singular_value(w)
    estimates = [
        float(
            jitted(impl.power_iteration)(
                jnp.asarray(w), jax.random.key(seed), n_iters=k
            )[0]
        )
        for k in [0, 1, 3]
    ]
    np.testing.assert_allclose(estimates[0], start, rtol=1e-5)
    assert all(e <= true * (1 + 1e-5) for e in estimates)
    assert all(b >= a * (1 - 1e-5) for a, b in zip(estimates, estimates[1:]))


#: Singular values 1 and 0.99: each power step still moves the estimate, so 99 or 101 steps give
#: another float32 result than 100.
SLOW = np.diag([1.0, 0.99, 0.5]).astype(np.float32)


@pytest.mark.requirement(5)
def test_default_is_100_iterations(impl):
    """Without n_iters both functions make the signature's 100 iterations, bit for bit; 99 and 101
    differ on SLOW."""
    w, key = (
        jnp.asarray(SLOW),
        lambda: jax.random.key(0),
    )  # a fresh key each call
    counts = (99, 100, 101)
    sigmas = [impl.power_iteration(w, key(), n)[0] for n in counts]
    assert len({float(s) for s in sigmas}) == 3, sigmas
    assert impl.power_iteration(w, key())[0] == sigmas[1]
    normalized = [impl.spectral_normalize(w, key(), n) for n in counts]
    default = impl.spectral_normalize(w, key())
    np.testing.assert_array_equal(default, normalized[1])
    assert not np.array_equal(default, normalized[0])
    assert not np.array_equal(default, normalized[2])


@pytest.mark.requirement(7)
@given(w=gapped_matrices())
@example(w=np.diag([2.0, 1.0, 0.5]).astype(np.float32) * 1e-3)
@example(w=np.diag([2.0, 1.0, 0.5]).astype(np.float32) * 5e2)
@example(w=np.array([[3e-4], [4e-4]], np.float32))
def test_property_spectral_normalize_every_scale(impl, w):
    """Every scale from 1e-3 to 1e3, below 1 included: w / sigma, of spectral norm 1 (the float64
    SVD's), under jax.jit."""
    f = jax.jit(impl.spectral_normalize, static_argnames="n_iters")
    out = f(jnp.asarray(w), jax.random.key(0), n_iters=100)
    assert out.shape == w.shape and out.dtype == jnp.float32
    np.testing.assert_allclose(top_singular_value(out), 1.0, rtol=1e-4)
    np.testing.assert_allclose(
        np.asarray(out, np.float64) * top_singular_value(w),
        w,
        rtol=1e-3,
        atol=1e-4 * top_singular_value(w),
    )
