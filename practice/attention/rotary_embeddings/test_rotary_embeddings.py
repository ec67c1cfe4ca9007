"""Tests for Rotary Position Embeddings."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import example, given, strategies as st
from hypothesis.extra import numpy as hnp

from practice._testing import normal


def np_rope(x, positions, base=10000.0):
    """Independent reference: pairs (i, i + H/2) as complex numbers times exp(i * pos * theta)."""
    x = np.asarray(x, np.float64)
    h = x.shape[-1] // 2
    theta = base ** (-np.arange(h) * 2.0 / x.shape[-1])
    z = x[..., :h] + 1j * x[..., h:]
    z = z * np.exp(
        1j * np.asarray(positions, np.float64)[:, None, None] * theta
    )
    return np.concatenate([z.real, z.imag], axis=-1)


@pytest.mark.requirement(1)
def test_frequencies(impl):
    freqs = impl.rope_frequencies(8)
    assert freqs.shape == (4,) and freqs.dtype == jnp.float32
    np.testing.assert_allclose(freqs, [1.0, 0.1, 0.01, 0.001], rtol=1e-6)
    np.testing.assert_allclose(
        impl.rope_frequencies(4, base=100.0), [1.0, 0.1], rtol=1e-6
    )


@pytest.mark.requirement(2)
def test_hand_values(impl):
    # H = 4: frequencies 1 and 0.01. A unit vector on feature 0 at position 1 turns by 1 radian
    # into the plane of features (0, 2); one on feature 1 at position 100 also turns by 1 radian.
    x = jnp.array(
        [[[1.0, 0.0, 0.0, 0.0]], [[0.0, 1.0, 0.0, 0.0]]]
    )  # (T=2, N=1, H=4)
    out = impl.apply_rope(x, jnp.array([1, 100]))
    c, s = np.cos(1.0), np.sin(1.0)
    np.testing.assert_allclose(
        out[0, 0], [c, 0.0, s, 0.0], rtol=1e-5, atol=1e-6
    )
    np.testing.assert_allclose(
        out[1, 0], [0.0, c, 0.0, s], rtol=1e-5, atol=1e-6
    )


@pytest.mark.requirement(3)
def test_position_zero_is_identity(impl):
    x = normal(0, (3, 2, 8))
    np.testing.assert_allclose(
        impl.apply_rope(x, jnp.zeros(3, jnp.int32)), x, rtol=1e-6
    )


@pytest.mark.requirement(3)
def test_matches_complex_reference(impl):
    x = normal(1, (5, 3, 16))
    positions = jnp.array([0, 3, 7, 100, 2047])
    np.testing.assert_allclose(
        impl.apply_rope(x, positions),
        np_rope(x, positions),
        rtol=1e-4,
        atol=1e-4,
    )


@pytest.mark.requirement(4)
def test_preserves_norms(impl):
    x = normal(2, (6, 4, 8))
    out = impl.apply_rope(x, jnp.arange(6) * 13)
    np.testing.assert_allclose(
        jnp.linalg.norm(out, axis=-1), jnp.linalg.norm(x, axis=-1), rtol=1e-5
    )


@pytest.mark.requirement(4)
def test_dot_product_depends_only_on_relative_position(impl):
    q, k = normal(3, (1, 1, 8), (1, 1, 8))

    rope = jax.jit(impl.apply_rope)  # many calls: compile once

    def score(m, n):
        qm = rope(q, jnp.array([m]))
        kn = rope(k, jnp.array([n]))
        return float(jnp.sum(qm * kn))

    for m, n in [(5, 2), (0, 7), (9, 9)]:
        for shift in (1, 10, 50):
            np.testing.assert_allclose(
                score(m + shift, n + shift), score(m, n), rtol=1e-4, atol=1e-4
            )
    assert (
        abs(score(5, 2) - score(2, 5)) > 1e-3
    )  # the order matters: it is m - n, not |m - n|


@pytest.mark.requirement(5)
def test_rotations_compose(impl):
    x = normal(4, (4, 2, 8))
    m, n = jnp.array([1, 2, 3, 4]), jnp.array([10, 0, 5, 7])
    np.testing.assert_allclose(
        impl.apply_rope(impl.apply_rope(x, m), n),
        impl.apply_rope(x, m + n),
        rtol=1e-4,
        atol=1e-5,
    )


@pytest.mark.requirement(6)
def test_bfloat16_in_bfloat16_out(impl):
    x = normal(5, (3, 2, 8)).astype(jnp.bfloat16)
    out = impl.apply_rope(x, jnp.array([0, 1, 2]))
    assert out.dtype == jnp.bfloat16 and out.shape == x.shape
    np.testing.assert_allclose(
        np.asarray(out, np.float32),
        np_rope(x.astype(jnp.float32), [0, 1, 2]),
        rtol=2e-2,
        atol=2e-2,
    )
    # the angles are computed in float32: bfloat16 would round position 2047 to 2048 (a radian off)
    positions = jnp.array([3, 500, 2047])
    out = impl.apply_rope(x, positions)
    np.testing.assert_allclose(
        np.asarray(out, np.float32),
        np_rope(x.astype(jnp.float32), positions),
        rtol=2e-2,
        atol=2e-2,
    )


@pytest.mark.requirement(7)
def test_under_jit_with_traced_positions(impl):
    x = normal(6, (3, 2, 8))
    f = jax.jit(impl.apply_rope)
    for start in (0, 40):
        positions = jnp.arange(3) + start
        np.testing.assert_allclose(
            f(x, positions), np_rope(x, positions), rtol=1e-4, atol=1e-5
        )


@pytest.mark.requirement(1)
@given(
    head_dim=st.integers(1, 64).map(lambda half: 2 * half),
    base=st.floats(2.0, 1e6),
)
@example(head_dim=2, base=10000.0)
@example(head_dim=6, base=100.0)
@example(head_dim=128, base=500000.0)
@example(head_dim=10, base=2.0)
def test_property_frequencies_match_float64(impl, head_dim, base):
    freqs = impl.rope_frequencies(head_dim, base)
    assert freqs.shape == (head_dim // 2,) and freqs.dtype == jnp.float32
    expected = base ** (-2.0 * np.arange(head_dim // 2) / head_dim)
    np.testing.assert_allclose(freqs, expected, rtol=1e-5)


# (T, N, H): T = 1, N = 1, H = 2, T == N, H not a power of two
SHAPES = [(1, 1, 2), (3, 3, 6), (4, 1, 4), (2, 5, 10)]
DTYPES = {
    "float32": jnp.float32,
    "bfloat16": jnp.bfloat16,
    "float16": jnp.float16,
}
TOL = {"float32": 1e-4, "bfloat16": 6e-2, "float16": 6e-3}


@st.composite
def rope_inputs(draw):
    """x of one dtype with entries in [-4, 4], positions in 0..2047. No
    float32 subnormals: XLA on CPU flushes them to zero (1e-45 at position 0
    comes back 0)."""
    t, n, h = draw(st.sampled_from(SHAPES))
    dtype = DTYPES[draw(st.sampled_from(sorted(DTYPES)))]
    normal = st.floats(-4, 4, width=32, allow_subnormal=False)
    x = draw(hnp.arrays(np.float32, (t, n, h), elements=normal))
    positions = draw(st.lists(st.integers(0, 2047), min_size=t, max_size=t))
    return jnp.asarray(x, dtype), jnp.asarray(positions, jnp.int32)


@pytest.mark.requirement(3, 6, 7)
@given(args=rope_inputs())
@example(
    args=(
        jnp.ones((3, 3, 6), jnp.bfloat16),
        jnp.array([2047, 1, 0], jnp.int32),
    )
)
def test_property_matches_complex_reference(impl, args):
    x, positions = args
    out = jax.jit(impl.apply_rope)(x, positions)
    assert out.shape == x.shape and out.dtype == x.dtype
    tol = TOL[jnp.dtype(x.dtype).name]
    np.testing.assert_allclose(
        np.asarray(out, np.float64), np_rope(x, positions), rtol=tol, atol=tol
    )


@pytest.mark.requirement(3)
@given(args=rope_inputs(), zeros=st.data())
@example(
    args=(
        jnp.asarray(
            np.float32([[[1e-3, -4.0, 3.0, 2.5]], [[1.0, 2.0, 3.0, 4.0]]])
        ),
        jnp.array([0, 7], jnp.int32),
    ),
    zeros=None,
)
def test_position_zero_leaves_rows_unchanged(impl, args, zeros):
    """Every row at position 0 (all of them, or some among rotated ones) comes
    back exactly as it was, in every dtype: cos 0 = 1 and sin 0 = 0 change no
    bit of a float32 computation."""
    x, positions = args
    if zeros is not None:
        chosen = zeros.draw(
            st.lists(
                st.booleans(), min_size=len(positions), max_size=len(positions)
            )
        )
        positions = jnp.where(jnp.array(chosen), 0, positions)
    out = jax.jit(impl.apply_rope)(x, positions)
    assert out.dtype == x.dtype
    at_zero = np.asarray(positions) == 0
    np.testing.assert_array_equal(
        np.asarray(out, np.float32)[at_zero],
        np.asarray(x, np.float32)[at_zero],
    )
