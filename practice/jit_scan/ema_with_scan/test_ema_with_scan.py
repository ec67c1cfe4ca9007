"""Tests for Exponential Moving Average with Scan."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import example, given, strategies as st
from hypothesis.extra import numpy as hnp

from practice._testing import compiled_lines


def np_ema(xs, decay, debias=False, resets=None):
    """float64 loop reference. inf and nan inputs are meant (the reset property feeds them):
    their arithmetic gives inf or nan as IEEE 754 says, without NumPy's warnings."""
    xs = np.asarray(xs, np.float64)
    m = np.zeros(xs.shape[1:])
    out = []
    with np.errstate(invalid="ignore", over="ignore"):
        for t, x in enumerate(xs):
            if resets is not None and resets[t]:
                m = x.copy()
            else:
                m = decay * m + (1 - decay) * x
            out.append(m / (1 - decay ** (t + 1)) if debias else m)
    return np.array(out).reshape(xs.shape)


@pytest.mark.requirement(1, 2)
def test_hand_computed(impl):
    xs = jnp.array([1.0, 2.0, 3.0])
    # m = 0.5, 0.25 + 1 = 1.25, 0.625 + 1.5 = 2.125
    np.testing.assert_allclose(
        impl.ema(xs, 0.5), [0.5, 1.25, 2.125], rtol=1e-6
    )
    # debiased: divide by 1 - 0.5, 1 - 0.25, 1 - 0.125
    np.testing.assert_allclose(
        impl.ema(xs, 0.5, debias=True),
        [1.0, 1.25 / 0.75, 2.125 / 0.875],
        rtol=1e-6,
    )


@pytest.mark.requirement(1, 2, 3)
def test_matches_numpy_loop(impl):
    rng = np.random.default_rng(0)
    xs = rng.normal(size=(50, 3, 2)).astype(np.float32)
    for decay in [0.0, 0.5, 0.9, 0.999]:
        for debias in [False, True]:
            out = impl.ema(jnp.asarray(xs), decay, debias=debias)
            assert out.shape == (50, 3, 2) and out.dtype == jnp.float32
            np.testing.assert_allclose(
                out,
                np_ema(xs, decay, debias),
                rtol=1e-4,
                atol=1e-5,
                err_msg=f"decay={decay} debias={debias}",
            )


@pytest.mark.requirement(1, 2, 3)
def test_edge_cases(impl):
    xs = jnp.asarray(
        np.random.default_rng(1).normal(size=(7, 4)).astype(np.float32)
    )
    np.testing.assert_allclose(impl.ema(xs, 0.0), xs, rtol=1e-6)  # no memory
    const = jnp.full((20, 3), 2.5)
    np.testing.assert_allclose(
        impl.ema(const, 0.95, debias=True), const, rtol=1e-4
    )
    empty = impl.ema(jnp.zeros((0, 3)), 0.9)
    assert empty.shape == (0, 3)


@pytest.mark.requirement(4)
def test_traced_decay_under_jit(impl):
    rng = np.random.default_rng(2)
    xs = rng.normal(size=(30, 2)).astype(np.float32)
    f = jax.jit(impl.ema, static_argnames="debias")
    for decay in [0.3, 0.8]:
        np.testing.assert_allclose(
            f(jnp.asarray(xs), jnp.float32(decay), debias=True),
            np_ema(xs, decay, True),
            rtol=1e-4,
            atol=1e-5,
        )


@pytest.mark.requirement(4, 5)
@pytest.mark.parametrize("debias", [False, True])
@pytest.mark.parametrize("traced_decay", [False, True])
def test_program_does_not_grow_with_length(impl, debias, traced_decay):
    """With and without debias, decay a Python float or traced."""

    def program_lines(t):
        xs = jnp.zeros((t, 3))
        if traced_decay:
            f = lambda xs, d: impl.ema(xs, d, debias=debias)
            jaxpr = jax.make_jaxpr(f)(xs, jnp.float32(0.9))
        else:
            f = lambda xs: impl.ema(xs, 0.9, debias=debias)
            jaxpr = jax.make_jaxpr(f)(xs)
        return len(str(jaxpr).splitlines())

    assert program_lines(10) == program_lines(300), (
        "the traced program grows with T: use lax.scan"
    )


@pytest.mark.requirement(5, 9)
def test_compiled_programs_do_not_grow_with_length(impl):
    """Checked on what XLA compiles, not only on the jaxpr (unroll=True)."""
    for f in (
        lambda xs: impl.ema(xs, 0.9),
        lambda xs: impl.ema_with_resets(xs, xs[:, 0] > 0, 0.9),
    ):
        lines = [compiled_lines(f, jnp.zeros((t, 3))) for t in (10, 300)]
        assert lines[0] == lines[1], f"compiled program grows with T: {lines}"


@pytest.mark.requirement(6)
def test_gradients(impl):
    # d/dx_s of sum_t m_t = 1 - decay ** (T - s)
    t_len, decay = 6, 0.7
    xs = jnp.linspace(-1.0, 1.0, t_len)
    grad_xs = jax.grad(lambda xs: jnp.sum(impl.ema(xs, decay)))(xs)
    np.testing.assert_allclose(
        grad_xs, 1 - decay ** (t_len - np.arange(t_len)), rtol=1e-5
    )
    # derivative in decay against a float64 central difference
    x64 = np.asarray(xs, np.float64)
    h = 1e-6
    fd = (np_ema(x64, decay + h).sum() - np_ema(x64, decay - h).sum()) / (
        2 * h
    )
    grad_decay = jax.grad(lambda d: jnp.sum(impl.ema(xs, d)))(
        jnp.float32(decay)
    )
    np.testing.assert_allclose(grad_decay, fd, rtol=1e-3)


@pytest.mark.requirement(7)
def test_resets_hand_computed(impl):
    xs = jnp.array([4.0, 2.0, 10.0, 6.0, 8.0])
    resets = jnp.array([False, False, True, False, True])
    # 2.0, 2.0, reset -> 10.0, 8.0, reset -> 8.0   (decay 0.5)
    np.testing.assert_allclose(
        impl.ema_with_resets(xs, resets, 0.5),
        [2.0, 2.0, 10.0, 8.0, 8.0],
        rtol=1e-6,
    )


@pytest.mark.requirement(7, 9)
def test_resets_random_under_jit(impl):
    rng = np.random.default_rng(3)
    xs = rng.normal(size=(40, 3)).astype(np.float32)
    resets = rng.random(40) < 0.2
    resets[0] = True
    out = jax.jit(impl.ema_with_resets)(
        jnp.asarray(xs), jnp.asarray(resets), jnp.float32(0.9)
    )
    assert out.shape == (40, 3) and out.dtype == jnp.float32
    np.testing.assert_allclose(
        out, np_ema(xs, 0.9, resets=resets), rtol=1e-4, atol=1e-5
    )
    no_resets = impl.ema_with_resets(jnp.asarray(xs), jnp.zeros(40, bool), 0.9)
    np.testing.assert_allclose(
        no_resets, np_ema(xs, 0.9), rtol=1e-4, atol=1e-5
    )


SHAPES = [(1,), (5,), (6, 1), (3, 1, 2)]  # T = 1, 1-D, size-1 axes, odd sizes
DECAYS = [0.0, 0.5, 0.9, 0.999]


@st.composite
def sequences(draw):
    """(T, ...) float32 arrays of a few small shapes, moderate values."""
    shape = draw(st.sampled_from(SHAPES))
    elements = st.floats(-1e3, 1e3, width=32)
    return draw(hnp.arrays(np.float32, shape, elements=elements))


@pytest.mark.requirement(1, 2, 3, 4)
@given(xs=sequences(), decay=st.sampled_from(DECAYS), debias=st.booleans())
@example(xs=np.ones((3, 1, 2), np.float32), decay=0.999, debias=True)
@example(xs=np.arange(5, dtype=np.float32), decay=0.5, debias=True)
def test_property_matches_float64_loop(impl, xs, decay, debias):
    f = jax.jit(impl.ema, static_argnames="debias")
    out = f(jnp.asarray(xs), jnp.float32(decay), debias=debias)
    assert out.shape == xs.shape and out.dtype == jnp.float32
    scale = 1 + np.abs(xs).max()
    np.testing.assert_allclose(
        out, np_ema(xs, decay, debias), rtol=1e-3, atol=1e-4 * scale
    )


@pytest.mark.requirement(7, 8, 9)
@given(xs=sequences(), decay=st.sampled_from(DECAYS), data=st.data())
@example(
    xs=np.array([np.inf, 1.0, 2.0], np.float32),
    decay=0.5,
    data=None,
)
def test_property_resets_ignore_the_past(impl, xs, decay, data):
    """inf or nan before a reset must not reach the outputs after it."""
    t_len = xs.shape[0]
    if data is None:  # the explicit example: inf, then a reset
        resets = np.array([False, True, False])
    else:
        resets = data.draw(hnp.arrays(np.bool_, (t_len,)))
        bad = data.draw(hnp.arrays(np.bool_, (t_len,)))
        xs = xs.copy()
        xs[bad] = data.draw(st.sampled_from([np.inf, -np.inf, np.nan]))
    out = jax.jit(impl.ema_with_resets)(
        jnp.asarray(xs), jnp.asarray(resets), jnp.float32(decay)
    )
    assert out.shape == xs.shape and out.dtype == jnp.float32
    scale = 1 + np.abs(np.nan_to_num(xs, posinf=0, neginf=0)).max()
    np.testing.assert_allclose(
        out, np_ema(xs, decay, resets=resets), rtol=1e-4, atol=1e-5 * scale
    )


@pytest.mark.requirement(9)
def test_resets_program_does_not_grow_with_length(impl):
    def program_lines(t):
        xs, resets = jnp.zeros((t, 3)), jnp.zeros(t, bool)
        jaxpr = jax.make_jaxpr(impl.ema_with_resets)  # resets, decay traced
        return len(str(jaxpr(xs, resets, jnp.float32(0.9))).splitlines())

    assert program_lines(10) == program_lines(300), (
        "the traced program grows with T: use lax.scan"
    )
