"""Tests for Masked Mean Without Boolean Indexing."""

import jax
import jax.numpy as jnp
import numpy as np


def np_masked_mean(x, mask, axis):
    """Loop reference: mean over `axis` of the selected entries, 0.0 for an empty selection."""
    x = np.moveaxis(np.asarray(x, dtype=np.float64), axis, -1)
    mask = np.moveaxis(np.asarray(mask), axis, -1)
    out = np.zeros(x.shape[:-1])
    for idx in np.ndindex(*x.shape[:-1]):
        picked = x[idx][mask[idx]]
        out[idx] = picked.mean() if picked.size else 0.0
    return out


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


def test_all_false_row_is_exactly_zero(impl):
    out = impl.masked_mean(
        jnp.full((2, 5), 7.0), jnp.zeros((2, 5), dtype=bool)
    )
    assert not np.any(np.isnan(out))
    np.testing.assert_array_equal(out, [0.0, 0.0])


def test_masked_out_inf_and_nan_do_not_leak(impl):
    x = jnp.array([[1.0, jnp.inf, 3.0], [jnp.nan, 2.0, -jnp.inf]])
    mask = jnp.array([[True, False, True], [False, True, False]])
    for f in (
        impl.masked_mean,
        jax.jit(impl.masked_mean),
    ):  # eagerly and compiled
        np.testing.assert_allclose(f(x, mask), [2.0, 2.0])
    grad = jax.jit(jax.grad(lambda x: jnp.sum(impl.masked_mean(x, mask))))(x)
    np.testing.assert_allclose(grad, [[0.5, 0.0, 0.5], [0.0, 1.0, 0.0]])


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


def test_gradient_is_finite_and_correct(impl):
    x = jnp.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    mask = jnp.array([[True, True, False], [False, False, False]])
    grad = jax.grad(lambda x: jnp.sum(impl.masked_mean(x, mask)))(x)
    # d/dx of (x00 + x01) / 2: 1/2 on the selected entries, 0 elsewhere, 0 on the empty row.
    np.testing.assert_allclose(grad, [[0.5, 0.5, 0.0], [0.0, 0.0, 0.0]])
