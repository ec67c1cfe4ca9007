"""Tests for Hessian-Vector Product."""

import hypothesis.extra.numpy as hnp
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import example, given, strategies as st
from jax.flatten_util import ravel_pytree


def f_dense(x):
    """A scalar function whose Hessian is dense, with no (n, n) intermediate of its own."""
    return jnp.sum(jnp.tanh(x)) * jnp.sum(x**2) + 0.25 * jnp.sum(x**4)


def hessian_f_dense(x):
    """The oracle: f_dense's Hessian worked out by hand, in float64 NumPy."""
    x = np.asarray(x, np.float64)
    t = np.tanh(x)
    sech2 = 1 - t**2
    q, s = np.sum(x**2), np.sum(t)
    diag = -2 * sech2 * t * q + 2 * s + 3 * x**2
    return np.diag(diag) + 2 * np.outer(sech2, x) + 2 * np.outer(x, sech2)


def vectors(n):
    return hnp.arrays(np.float32, n, elements=st.floats(-2, 2, width=32))


@st.composite
def points_and_directions(draw):
    n = draw(st.sampled_from([1, 3, 6]))
    return draw(vectors(n)), draw(vectors(n))


@pytest.mark.requirement(1)
@given(points_and_directions(), st.booleans())
@example((np.float32([0.5]), np.float32([1.0])), False)
def test_matches_float64_hessian(impl, case, jit):
    x, v = case
    hvp = lambda x, v: impl.hvp(f_dense, x, v)
    out = (jax.jit(hvp) if jit else hvp)(jnp.asarray(x), jnp.asarray(v))
    assert out.shape == x.shape and out.dtype == jnp.float32
    expected = hessian_f_dense(x) @ v.astype(np.float64)
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-4)


@st.composite
def pytree_points(draw):
    """Two dicts alike: a scalar, a size-1 axis and a matrix among the leaves."""
    shapes = {"a": (), "b": (1, 3), "c": (2, 2)}
    leaves = lambda: {k: draw(vectors(s)) for k, s in shapes.items()}
    return leaves(), leaves()


@pytest.mark.requirement(2)
@given(pytree_points())
def test_pytree_matches_float64_hessian(impl, case):
    params, v = case
    flat_p, unravel = ravel_pytree(params)
    flat_v, _ = ravel_pytree(v)
    f = lambda p: f_dense(ravel_pytree(p)[0])
    out = impl.hvp(f, jax.tree.map(jnp.asarray, params), v)
    assert jax.tree.structure(out) == jax.tree.structure(params)
    expected = unravel(hessian_f_dense(flat_p) @ np.float64(flat_v))
    for key in params:
        assert out[key].shape == params[key].shape
        assert out[key].dtype == jnp.float32
        np.testing.assert_allclose(
            out[key], expected[key], rtol=1e-4, atol=1e-4
        )


@st.composite
def diagonals(draw):
    """A diagonal Hessian whose top-magnitude eigenvalue stands out by 2x, at
    every scale the statement names (top magnitudes from 1e-15 to 1e15)."""
    n = draw(st.sampled_from([1, 2, 5, 8]))
    rest = draw(hnp.arrays(np.float32, n - 1, elements=st.floats(-2, 2)))
    top = draw(st.sampled_from([-6.0, -4.0, 4.0, 6.0]))
    scale = 10.0 ** draw(st.integers(-15, 14))
    d = np.float32(np.append(rest, top) * scale)
    return d, draw(st.integers(0, 2**31 - 1))


@pytest.mark.requirement(4)
@given(diagonals())
@example((np.float32([1, -5, 3, 2, 0.5]), 0))
@example((np.float32([1, -5, 3, 2, 0.5]) * np.float32(1e-13), 0))
@example((np.float32([1, -5, 3, 2, 0.5]) * np.float32(1e14), 0))
def test_sharpness_matches_eigenvalue(impl, case):
    d, seed = case
    f = lambda x: 0.5 * jnp.sum(jnp.asarray(d) * x**2)
    x = jnp.ones(d.shape)
    out = impl.sharpness(f, x, jax.random.key(seed), n_iters=60)
    assert out.shape == () and out.dtype == jnp.float32
    top = d[np.argmax(np.abs(d))]
    np.testing.assert_allclose(out, top, rtol=1e-3)


@pytest.mark.requirement(4)
@pytest.mark.parametrize("n_iters", [0, 1, 2, 30])
@pytest.mark.parametrize("kind", ["linear", "constant"])
def test_sharpness_of_a_zero_hessian_is_zero(impl, n_iters, kind):
    """H = 0: power iteration meets H u = 0, whose norm must not divide."""
    c = jnp.arange(1.0, 6.0)
    f = (lambda x: c @ x) if kind == "linear" else (lambda x: jnp.float32(3))
    out = impl.sharpness(f, jnp.ones(5), jax.random.key(0), n_iters=n_iters)
    assert out.shape == () and out.dtype == jnp.float32
    assert out == 0.0, out


@pytest.mark.requirement(5)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_sharpness_makes_exactly_n_iters_steps(impl, seed):
    """H = diag(2, 1) from a start (a, b): after n steps u is along
    (2**n a, b), so n_iters = 0 fixes r = a**2 / b**2 and every later
    estimate (2 * 4**n r + 1) / (4**n r + 1): one step more or less shows."""
    f = lambda x: x[0] ** 2 + 0.5 * x[1] ** 2
    x = jnp.zeros(2)
    q0 = float(impl.sharpness(f, x, jax.random.key(seed), n_iters=0))
    r = (q0 - 1) / (2 - q0)
    for n in [1, 2, 3]:
        want = (2 * 4**n * r + 1) / (4**n * r + 1)
        got = impl.sharpness(f, x, jax.random.key(seed), n_iters=n)
        np.testing.assert_allclose(got, want, rtol=1e-5, err_msg=f"n={n}")
    # H = diag(1, 0): one step lands on (1, 0) exactly, so only a start
    # without any step can give a quotient a**2 below 1
    g = lambda x: 0.5 * x[0] ** 2
    start = impl.sharpness(g, x, jax.random.key(seed), n_iters=0)
    assert start < 1 - 1e-6, start
    assert impl.sharpness(g, x, jax.random.key(seed), n_iters=1) == 1.0


@pytest.mark.requirement(4)
def test_sharpness_defaults_to_100_iterations(impl):
    """The signature's n_iters = 100, bit for bit: eigenvalues 1 and -0.97
    are close, so 99 or 101 iterations give another estimate."""
    h = jnp.array([1.0, -0.97, 0.5, 0.2])
    f = lambda x: 0.5 * jnp.sum(h * x * x)
    x, key = jnp.ones(4), lambda: jax.random.key(0)  # a fresh key each call
    default = impl.sharpness(f, x, key())
    assert default == impl.sharpness(f, x, key(), 100)
    assert default != impl.sharpness(f, x, key(), 99)


@pytest.mark.requirement(5)
@given(st.integers(0, 2**31 - 1))
@example(0)
def test_sharpness_zero_iterations_is_a_rayleigh_quotient(impl, seed):
    d = np.linspace(1.0, 2.0, 12, dtype=np.float32)
    f = lambda x: 0.5 * jnp.sum(jnp.asarray(d) * x**2)
    out = impl.sharpness(f, jnp.ones(12), jax.random.key(seed), n_iters=0)
    assert out.shape == ()
    assert 1.0 - 1e-5 <= float(out) <= 2.0 + 1e-5


@pytest.mark.requirement(1)
def test_quadratic_by_hand(impl):
    # f(x) = 1/2 x^T A x + b^T x has Hessian A everywhere.
    a = jnp.array([[2.0, 1.0, 0.0], [1.0, 3.0, -1.0], [0.0, -1.0, 4.0]])
    b = jnp.array([1.0, -2.0, 0.5])
    f = lambda x: 0.5 * x @ a @ x + b @ x
    out = impl.hvp(f, jnp.array([0.3, -0.7, 2.0]), jnp.array([1.0, 0.0, 2.0]))
    np.testing.assert_allclose(out, [2.0, -1.0, 8.0], rtol=1e-6)


@pytest.mark.requirement(1)
def test_matches_jax_hessian(impl):
    rng = np.random.default_rng(0)
    oracle = jax.jit(lambda x, v: jax.hessian(f_dense)(x) @ v)
    for _ in range(3):
        x = jnp.asarray(rng.normal(size=6).astype(np.float32))
        v = jnp.asarray(rng.normal(size=6).astype(np.float32))
        expected = oracle(x, v)
        out = impl.hvp(f_dense, x, v)
        assert out.shape == (6,) and out.dtype == jnp.float32
        np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-4)


@pytest.mark.requirement(2)
def test_pytree_params(impl):
    def f(p):
        return jnp.sum(jnp.sin(p["a"]) * p["b"][0]) + jnp.sum(
            p["b"] ** 3
        ) * jnp.sum(p["a"] ** 2)

    rng = np.random.default_rng(1)
    params = {
        "a": jnp.asarray(rng.normal(size=3).astype(np.float32)),
        "b": jnp.asarray(rng.normal(size=(2, 3)).astype(np.float32)),
    }
    v = {
        "a": jnp.asarray(rng.normal(size=3).astype(np.float32)),
        "b": jnp.asarray(rng.normal(size=(2, 3)).astype(np.float32)),
    }
    flat_p, unravel = ravel_pytree(params)
    flat_v, _ = ravel_pytree(v)
    expected = unravel(
        jax.jit(jax.hessian(lambda q: f(unravel(q))))(flat_p) @ flat_v
    )
    out = jax.jit(lambda p, v: impl.hvp(f, p, v))(params, v)
    assert jax.tree.structure(out) == jax.tree.structure(params)
    for key in ("a", "b"):
        assert out[key].shape == params[key].shape
        np.testing.assert_allclose(
            out[key], expected[key], rtol=1e-4, atol=1e-4
        )


@pytest.mark.requirement(1)
def test_linear_in_v(impl):
    rng = np.random.default_rng(2)
    x, v, w = (
        jnp.asarray(rng.normal(size=5).astype(np.float32)) for _ in range(3)
    )
    lhs = impl.hvp(f_dense, x, 2.0 * v - 3.0 * w)
    rhs = 2.0 * impl.hvp(f_dense, x, v) - 3.0 * impl.hvp(f_dense, x, w)
    np.testing.assert_allclose(lhs, rhs, rtol=1e-4, atol=1e-4)


@pytest.mark.requirement(1, 3)
def test_jits_and_never_builds_the_hessian(impl):
    n = 37
    x = jnp.linspace(-1.0, 1.0, n)
    v = jnp.cos(jnp.arange(n, dtype=jnp.float32))
    f = jax.jit(lambda x, v: impl.hvp(f_dense, x, v))
    expected = jax.jit(lambda x, v: jax.hessian(f_dense)(x) @ v)(x, v)
    np.testing.assert_allclose(f(x, v), expected, rtol=1e-4, atol=1e-4)
    program = str(jax.make_jaxpr(lambda x, v: impl.hvp(f_dense, x, v))(x, v))
    assert f"[{n},{n}]" not in program, (
        "an (n, n) array appears: the Hessian was built"
    )


@pytest.mark.requirement(4)
def test_sharpness_of_a_quadratic(impl):
    d = jnp.array([1.0, -5.0, 3.0, 2.0, 0.5])
    f = lambda x: 0.5 * jnp.sum(d * x**2)
    out = impl.sharpness(f, jnp.ones(5), jax.random.key(0), n_iters=100)
    assert out.shape == ()
    np.testing.assert_allclose(out, -5.0, rtol=1e-3)


@pytest.mark.requirement(4, 6)
def test_sharpness_matches_eigvalsh_and_never_builds_the_hessian(impl):
    n = 12
    rng = np.random.default_rng(3)
    m = rng.normal(size=(n, n)).astype(np.float32) / np.sqrt(n)
    a = jnp.asarray(
        m @ m.T + np.diag(np.linspace(0.0, 6.0, n)).astype(np.float32)
    )

    def f(x):
        return 0.5 * x @ a @ x + jnp.sum(jnp.cos(x))

    x = jnp.asarray(rng.normal(size=n).astype(np.float32))
    eig = np.linalg.eigvalsh(
        np.asarray(jax.jit(jax.hessian(f))(x), np.float64)
    )
    top = eig[np.argmax(np.abs(eig))]
    ordered = np.sort(np.abs(eig))
    assert (
        ordered[-2] / ordered[-1] < 0.9
    )  # a clear gap, so 200 iterations converge
    out = impl.sharpness(f, x, jax.random.key(1), n_iters=200)
    np.testing.assert_allclose(out, top, rtol=1e-3)
    # f holds the (n, n) matrix `a` itself, so inspect the program for f_dense instead.
    program = str(
        jax.make_jaxpr(
            lambda x: impl.sharpness(f_dense, x, jax.random.key(2), 3)
        )(x)
    )
    assert f"[{n},{n}]" not in program, (
        "an (n, n) array appears: the Hessian was built"
    )
