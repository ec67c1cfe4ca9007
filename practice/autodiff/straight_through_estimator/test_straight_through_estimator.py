"""Tests for Straight-Through Estimator with Custom VJP."""

import hypothesis.extra.numpy as hnp
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import example, given, strategies as st

SHAPES = [(1,), (7,), (2, 3)]
# Floats with exact halves, integers, +-1, 0 and -0.0 among them.
VALUES = st.one_of(
    # no subnormals: XLA on CPU flushes them to zero (sign(-1e-45) is +1 there)
    st.floats(-4, 4, width=32, allow_subnormal=False),
    st.integers(-8, 8).map(lambda k: k / 2),
    st.sampled_from([0.0, -0.0, 1.0, -1.0]),
)


@st.composite
def arrays(draw, elements=VALUES):
    shape = draw(st.sampled_from(SHAPES))
    x = draw(hnp.arrays(np.float32, shape, elements=elements))
    w = draw(hnp.arrays(np.float32, shape, elements=st.integers(-3, 3)))
    return x, w


@pytest.mark.requirement(1, 2)
@given(arrays())
@example(
    (np.float32([0.5, 1.5, 2.5, -0.5, -2.5]), np.float32([1, 2, 3, 4, 5]))
)
def test_round_matches_numpy_and_passes_gradient(impl, case):
    x, w = case
    out = impl.round_ste(jnp.asarray(x))
    assert out.shape == x.shape and out.dtype == jnp.float32
    np.testing.assert_array_equal(out, np.round(x))  # half to even
    grad = jax.grad(lambda x: jnp.sum(impl.round_ste(x) * w))(x)
    np.testing.assert_array_equal(grad, w)
    grad = jax.grad(lambda x: jnp.sum(impl.round_ste(x) ** 2))(x)
    np.testing.assert_allclose(grad, 2 * np.round(x.astype(np.float64)))


@pytest.mark.requirement(4, 5)
@given(arrays())
@example((np.float32([-0.0, 0.0, 1.0, -1.0]), np.float32([1, 2, 3, 4])))
def test_sign_matches_numpy(impl, case):
    x, w = case
    out = impl.sign_ste(jnp.asarray(x))
    assert out.shape == x.shape and out.dtype == jnp.float32
    np.testing.assert_array_equal(out, np.where(x >= 0, 1.0, -1.0))
    grad = jax.grad(lambda x: jnp.sum(impl.sign_ste(x) * w))(x)
    np.testing.assert_array_equal(grad, np.where(np.abs(x) <= 1, w, 0.0))


AWAY_FROM_ONE = st.floats(-1.5, 1.5, width=32).filter(
    lambda v: abs(abs(v) - 1) > 1e-3
)


@pytest.mark.requirement(6, 7)
@given(arrays(AWAY_FROM_ONE), st.sampled_from([2, 3, 4, 8]))
@example((np.float32([1 / 6, 0.5, -0.5, 1.2]), np.ones(4, np.float32)), 3)
def test_fake_quantize_matches_numpy(impl, case, n_bits):
    x, _ = case
    s = 2 ** (n_bits - 1) - 1
    out = impl.fake_quantize(jnp.asarray(x), n_bits)
    assert out.shape == x.shape and out.dtype == jnp.float32
    expected = np.round(np.clip(x * np.float32(s), -s, s)) / np.float64(s)
    np.testing.assert_allclose(out, expected, rtol=1e-6)
    quantize = lambda x: jnp.sum(impl.fake_quantize(x, n_bits))
    grad = jax.jit(jax.grad(quantize))(jnp.asarray(x))
    np.testing.assert_array_equal(grad, np.abs(x) < 1)


@pytest.mark.requirement(1)
def test_round_forward_values(impl):
    x = jnp.array([-2.5, -1.5, -0.6, -0.4, 0.0, 0.5, 1.5, 2.5, 3.7])
    out = impl.round_ste(x)
    np.testing.assert_array_equal(
        out, [-2.0, -2.0, -1.0, 0.0, 0.0, 0.0, 2.0, 2.0, 4.0]
    )
    assert out.dtype == jnp.float32 and out.shape == x.shape


@pytest.mark.requirement(2)
def test_round_gradient_is_identity(impl):
    rng = np.random.default_rng(0)
    x = jnp.asarray(rng.normal(scale=3.0, size=(4, 5)).astype(np.float32))
    w = jnp.asarray(rng.normal(size=(4, 5)).astype(np.float32))
    grad = jax.grad(lambda x: jnp.sum(impl.round_ste(x) * w))(x)
    np.testing.assert_allclose(grad, w, rtol=1e-6)


@pytest.mark.requirement(2)
def test_round_chain_rule_uses_forward_value(impl):
    # d/dx round_ste(x)^2 = 2 * round(x) * 1
    x = jnp.array([0.4, 1.6, -2.7])
    grad = jax.grad(lambda x: jnp.sum(impl.round_ste(x) ** 2))(x)
    np.testing.assert_allclose(grad, [0.0, 4.0, -6.0], rtol=1e-6)


@pytest.mark.requirement(3)
def test_round_and_sign_are_custom_vjp_functions(impl):
    x = jnp.ones(3)
    assert "custom_vjp_call" in str(jax.make_jaxpr(impl.round_ste)(x))
    assert "custom_vjp_call" in str(jax.make_jaxpr(impl.sign_ste)(x))


@pytest.mark.requirement(4)
def test_sign_forward_values(impl):
    x = jnp.array([-3.0, -0.1, 0.0, 0.1, 2.0])
    out = impl.sign_ste(x)
    np.testing.assert_array_equal(out, [-1.0, -1.0, 1.0, 1.0, 1.0])
    assert out.dtype == jnp.float32


@pytest.mark.requirement(5)
def test_sign_gradient_is_clipped_identity(impl):
    x = jnp.array([-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0])
    w = jnp.arange(1.0, 8.0)
    grad = jax.grad(lambda x: jnp.sum(impl.sign_ste(x) * w))(x)
    np.testing.assert_allclose(grad, [0.0, 2.0, 3.0, 4.0, 5.0, 6.0, 0.0])


@pytest.mark.requirement(6)
def test_fake_quantize_values(impl):
    x = jnp.array([-1.0, -0.6, -0.1, 0.0, 0.2, 0.5, 0.9, 1.5])
    # n_bits = 3: s = 3, x * s = [-3, -1.8, -0.3, 0, 0.6, 1.5, 2.7, 4.5]
    # clip to [-3, 3] -> round (half to even) = [-3, -2, 0, 0, 1, 2, 3, 3] -> divide by 3
    out = impl.fake_quantize(x, 3)
    np.testing.assert_allclose(
        out, np.array([-3, -2, 0, 0, 1, 2, 3, 3]) / 3.0, rtol=1e-6
    )
    assert out.dtype == jnp.float32


@pytest.mark.requirement(6, 7)
def test_fake_quantize_grid_and_gradient(impl):
    rng = np.random.default_rng(1)
    x = jnp.asarray(rng.uniform(-1.5, 1.5, size=200).astype(np.float32))
    for n_bits in [2, 4, 8]:
        s = 2 ** (n_bits - 1) - 1
        out = np.asarray(impl.fake_quantize(x, n_bits))
        np.testing.assert_allclose(
            out * s, np.round(out * s), atol=1e-4
        )  # on the grid k / s
        assert np.all(np.abs(out) <= 1.0 + 1e-6)
        assert np.all(
            np.abs(out - np.clip(np.asarray(x), -1, 1)) <= 0.5 / s + 1e-6
        )
        grad = jax.jit(
            jax.grad(lambda x: jnp.sum(impl.fake_quantize(x, n_bits)))
        )(x)
        np.testing.assert_array_equal(
            grad, (np.abs(np.asarray(x)) < 1.0).astype(np.float32)
        )


NORMAL = st.floats(-2, 2, width=32, allow_subnormal=False)


@pytest.mark.requirement(6, 7)
@given(
    arrays(NORMAL | st.sampled_from([0.5, -0.5, 1e-30, -0.0, 1.0, -1.0])),
    st.integers(2, 25) | st.sampled_from([26, 32, 33, 64, 1000]),
)
@example((np.float32([0.3, -1e-30, 1.5, -0.0]), np.ones(4, np.float32)), 25)
@example((np.float32([0.3, -1e-30, 1.5, -0.0]), np.ones(4, np.float32)), 26)
@example((np.float32([0.3, -1e-30, 1.5, -0.0]), np.ones(4, np.float32)), 33)
@example((np.float32([0.3, -1e-30, 1.5, -0.0]), np.ones(4, np.float32)), 2)
@example((np.float32([0.1875, 0, 0, 0, 0, 0, 0]), np.ones(7, np.float32)), 5)
def test_fake_quantize_every_n_bits_bit_exact(impl, case, n_bits):
    """Every n_bits >= 2, bit for bit: the float32 formula up to 25 bits
    (float32 NumPy rounds x * s and the clip like XLA for normal values; the
    level k / s is either the rounded quotient or k times the rounded 1 / s,
    as XLA may divide by a constant), clip(x, -1, 1) from 26 bits on;
    gradient 1 inside (-1, 1)."""
    x, _ = case
    s = 2 ** (n_bits - 1) - 1
    out = impl.fake_quantize(jnp.asarray(x), n_bits)
    assert out.shape == x.shape and out.dtype == jnp.float32
    bits = np.asarray(out).view(np.uint32)
    if n_bits <= 25:
        sf = np.float32(s)
        k = np.round(np.clip(x * sf, -sf, sf))
        quotient, product = k / sf, k * (np.float32(1) / sf)
        assert quotient.dtype == product.dtype == np.float32
        either = (bits == quotient.view(np.uint32)) | (
            bits == product.view(np.uint32)
        )
        np.testing.assert_array_equal(either, True, err_msg=f"{out} {k}/{s}")
    else:
        want = np.clip(x, np.float32(-1), np.float32(1))
        np.testing.assert_array_equal(bits, want.view(np.uint32))
    inside = np.abs(x) != 1
    grad = jax.grad(lambda x: jnp.sum(impl.fake_quantize(x, n_bits)))(x)
    np.testing.assert_array_equal(
        np.asarray(grad)[inside], (np.abs(x) < 1)[inside]
    )


@pytest.mark.requirement(7)
def test_learns_through_quantization(impl):
    # Fit w so that fake_quantize(w, 4) matches a target on the grid: impossible with
    # jnp.round (zero gradient), easy with the straight-through estimator.
    target = jnp.array([3.0, -5.0, 7.0]) / 7.0
    loss = lambda w: jnp.sum((impl.fake_quantize(w, 4) - target) ** 2)
    w = jnp.zeros(3)
    step = jax.jit(lambda w: w - 0.1 * jax.grad(loss)(w))
    for _ in range(40):
        w = step(w)
    np.testing.assert_allclose(impl.fake_quantize(w, 4), target, atol=1e-6)


@pytest.mark.requirement(4, 5)
@pytest.mark.parametrize("jit", [False, True])
def test_sign_of_nan_is_minus_one_and_its_gradient_zero(impl, jit):
    """nan >= 0 is False: "elsewhere" gives -1.0, and |nan| <= 1 is False."""
    x = jnp.float32([np.nan, -np.nan, np.inf, -np.inf, 0.5])
    f = jax.jit(impl.sign_ste) if jit else impl.sign_ste
    np.testing.assert_array_equal(f(x), [-1.0, -1.0, 1.0, -1.0, 1.0])
    grad = jax.grad(lambda x: jnp.sum(impl.sign_ste(x) * 3.0))(x)
    np.testing.assert_array_equal(grad, [0.0, 0.0, 0.0, 0.0, 3.0])
