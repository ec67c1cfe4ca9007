"""Tests for Masked Mean Without Boolean Indexing."""

import hypothesis.extra.numpy as hnp
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import example, given, strategies as st

DTYPES = [jnp.float32, jnp.bfloat16, jnp.float16]
TOLERANCE = {jnp.float32: 1e-5, jnp.bfloat16: 2e-2, jnp.float16: 2e-3}
SHAPES = [(1, 1), (3, 1), (2, 5), (4, 7)]
SHAPES_3D = [(1, 3, 2), (2, 1, 3), (3, 4, 1)]


def np_masked_mean(x, mask, axis):
    """Loop reference: mean over `axis` of the selected entries, 0.0 for an empty selection."""
    x = np.moveaxis(np.asarray(x, dtype=np.float64), axis, -1)
    mask = np.moveaxis(np.asarray(mask), axis, -1)
    out = np.zeros(x.shape[:-1])
    for idx in np.ndindex(*x.shape[:-1]):
        picked = x[idx][mask[idx]]
        out[idx] = picked.mean() if picked.size else 0.0
    return out


@st.composite
def cases(draw, shapes=SHAPES):
    """Integer-valued x (exact in every dtype) and a mask of the same shape."""
    shape = draw(st.sampled_from(shapes))
    x = draw(
        hnp.arrays(np.float32, shape, elements=st.integers(-20, 20).map(float))
    )
    mask = draw(hnp.arrays(np.bool_, shape))
    return x, mask


EMPTY_ROW = (
    np.float32([[1, 2, 3], [4, 5, 6]]),
    np.array([[True, False, True], [False, False, False]]),
)


@pytest.mark.requirement(1, 2, 3)
@given(cases(), st.sampled_from(DTYPES))
@example(EMPTY_ROW, jnp.bfloat16)
@example(EMPTY_ROW, jnp.float16)
def test_matches_numpy_loop(impl, case, dtype):
    x, mask = case
    out = impl.masked_mean(jnp.asarray(x, dtype), jnp.asarray(mask))
    assert out.shape == x.shape[:-1] and out.dtype == dtype
    tol = TOLERANCE[dtype]
    np.testing.assert_allclose(
        np.asarray(out, np.float64),
        np_masked_mean(x, mask, -1),
        rtol=tol,
        atol=tol,
    )


@pytest.mark.requirement(4, 5, 7)
@given(cases(), st.sampled_from([np.inf, -np.inf, np.nan]))
@example(EMPTY_ROW, np.nan)
def test_masked_out_non_finite_ignored_under_jit(impl, case, bad):
    x, mask = case
    dirty = np.where(mask, x, bad).astype(np.float32)
    out = jax.jit(impl.masked_mean)(jnp.asarray(dirty), jnp.asarray(mask))
    np.testing.assert_allclose(
        out, np_masked_mean(x, mask, -1), rtol=1e-5, atol=1e-6
    )
    loss = lambda x: jnp.sum(impl.masked_mean(x, jnp.asarray(mask)))
    grad = jax.jit(jax.grad(loss))(jnp.asarray(dirty))
    count = np.maximum(mask.sum(-1, keepdims=True), 1)
    np.testing.assert_allclose(grad, mask / count, rtol=1e-6)


@pytest.mark.requirement(6)
@given(cases(SHAPES_3D), st.integers(-3, 2))
@example(
    (np.float32([[[1], [2], [3]]]), np.array([[[True], [True], [False]]])),
    -2,
)
def test_axis_matches_numpy_loop(impl, case, axis):
    x, mask = case
    f = jax.jit(impl.masked_mean, static_argnames="axis")
    out = f(jnp.asarray(x), jnp.asarray(mask), axis=axis)
    expected = np_masked_mean(x, mask, axis)
    assert out.shape == expected.shape
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.requirement(1, 2)
def test_hand_computed(impl):
    x = jnp.array(
        [[1.0, 2.0, 3.0, 4.0], [10.0, 20.0, 30.0, 40.0], [5.0, 5.0, 5.0, 5.0]]
    )
    mask = jnp.array(
        [
            [True, False, True, False],
            [False, False, False, True],
            [False, False, False, False],
        ]
    )
    out = impl.masked_mean(x, mask)
    np.testing.assert_allclose(out, [2.0, 40.0, 0.0])
    assert out.shape == (3,) and out.dtype == jnp.float32


@pytest.mark.requirement(3)
def test_all_false_row_is_exactly_zero(impl):
    out = impl.masked_mean(
        jnp.full((2, 5), 7.0), jnp.zeros((2, 5), dtype=bool)
    )
    assert not np.any(np.isnan(out))
    np.testing.assert_array_equal(out, [0.0, 0.0])


@pytest.mark.requirement(4, 5, 7)
def test_masked_out_inf_and_nan_do_not_leak(impl):
    x = jnp.array([[1.0, jnp.inf, 3.0], [jnp.nan, 2.0, -jnp.inf]])
    mask = jnp.array([[True, False, True], [False, True, False]])
    for f in (
        impl.masked_mean,
        jax.jit(impl.masked_mean),
    ):  # eagerly and compiled
        np.testing.assert_allclose(f(x, mask), [2.0, 2.0])
    # Op by op as well: XLA may turn `x * mask` into a select, which hides inf * 0 = nan.
    with jax.disable_jit():
        np.testing.assert_allclose(impl.masked_mean(x, mask), [2.0, 2.0])
    grad = jax.jit(jax.grad(lambda x: jnp.sum(impl.masked_mean(x, mask))))(x)
    np.testing.assert_allclose(grad, [[0.5, 0.0, 0.5], [0.0, 1.0, 0.0]])


@pytest.mark.requirement(1, 3, 5)
def test_random_masks_under_jit_match_numpy(impl):
    rng = np.random.default_rng(0)
    f = jax.jit(impl.masked_mean)
    for p in [0.1, 0.5, 0.9]:
        x = rng.normal(size=(6, 9)).astype(np.float32)
        mask = rng.random((6, 9)) < p
        mask[0] = False  # always include an all-False row
        out = f(jnp.asarray(x), jnp.asarray(mask))
        np.testing.assert_allclose(
            out, np_masked_mean(x, mask, -1), rtol=1e-5, atol=1e-6
        )


@pytest.mark.requirement(6)
def test_axis_argument(impl):
    rng = np.random.default_rng(1)
    x = rng.normal(size=(3, 4, 5)).astype(np.float32)
    mask = rng.random((3, 4, 5)) < 0.4
    mask[:, 1, :] = False
    for axis in [0, 1, 2, -1, -2]:
        f = jax.jit(impl.masked_mean, static_argnames="axis")
        out = f(jnp.asarray(x), jnp.asarray(mask), axis=axis)
        expected = np_masked_mean(x, mask, axis)
        assert out.shape == expected.shape, axis
        np.testing.assert_allclose(
            out, expected, rtol=1e-5, atol=1e-6, err_msg=f"axis={axis}"
        )


@pytest.mark.requirement(7)
def test_gradient_is_finite_and_correct(impl):
    x = jnp.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    mask = jnp.array([[True, True, False], [False, False, False]])
    grad = jax.grad(lambda x: jnp.sum(impl.masked_mean(x, mask)))(x)
    # d/dx of (x00 + x01) / 2: 1/2 on the selected entries, 0 elsewhere, 0 on the empty row.
    np.testing.assert_allclose(grad, [[0.5, 0.5, 0.0], [0.0, 0.0, 0.0]])


@pytest.mark.requirement(1, 4)
@given(
    cases(SHAPES + SHAPES_3D),
    st.sampled_from([np.inf, -np.inf, np.nan]),
    st.booleans(),
)
@example(
    (np.float32([[1, 2, 3]]), np.array([[True, True, False]])), np.inf, True
)
@example(
    (np.float32([[1, 2, 3]]), np.array([[True, True, False]])), np.nan, False
)
def test_default_axis_and_non_finite_at_selected_positions(
    impl, case, bad, both_signs
):
    """Default axis on 2-D and 3-D inputs; inf and nan where mask is True do
    count: the mean of the selected entries is then inf, -inf or nan."""
    x, mask = case
    x = x.copy()
    selected = np.argwhere(mask)
    if len(selected):
        x[tuple(selected[0])] = bad
        if both_signs and len(selected) > 1:
            x[tuple(selected[-1])] = -bad  # inf - inf: nan
    with np.errstate(invalid="ignore"):
        want = np_masked_mean(x, mask, -1)
    out = impl.masked_mean(jnp.asarray(x), jnp.asarray(mask))
    assert out.shape == x.shape[:-1]
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-6)
