"""Tests for Online Softmax over Key Blocks."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import example, given, strategies as st


def attention64(q, k, v, mask):
    """Masked softmax attention in float64 NumPy, 0 for a query that sees
    no key: the oracle."""
    q, k, v = (np.asarray(a, np.float64) for a in (q, k, v))
    s = np.where(mask, q @ k.T / np.sqrt(q.shape[-1]), -np.inf)
    out = np.zeros((q.shape[0], v.shape[1]))
    for i in range(q.shape[0]):
        if mask[i].any():
            w = np.exp(s[i] - s[i].max())
            out[i] = w @ v / w.sum()
    return out


def arrays(seed, b, d, dv, c, scale=1.0, p_visible=0.7):
    """Random float32 q (b, d), k (c, d), v (c, dv), bool mask (b, c)."""
    rng = np.random.default_rng(seed)
    q = (scale * rng.standard_normal((b, d))).astype(np.float32)
    k = (scale * rng.standard_normal((c, d))).astype(np.float32)
    v = rng.standard_normal((c, dv)).astype(np.float32)
    mask = rng.random((b, c)) < p_visible
    return q, k, v, mask


def blocks(sizes):
    """Slices of consecutive keys of the given sizes."""
    ends = np.cumsum(sizes)
    return [slice(e - n, e) for n, e in zip(sizes, ends)]


def fold_all(impl, q, k, v, mask, sizes, order=None):
    """init_state, fold each block (in order), finish; fold jitted."""
    fold = jax.jit(impl.fold_block)
    state = impl.init_state(q.shape[0], v.shape[1])
    parts = blocks(sizes)
    for i in order if order is not None else range(len(parts)):
        j = parts[i]
        state = fold(state, q, k[j], v[j], mask[:, j])
    return state, impl.finish(state)


SIZES = st.lists(st.integers(1, 7), min_size=1, max_size=4)


@pytest.mark.requirement(1, 6)
@given(
    b=st.integers(1, 4),
    d=st.integers(1, 5),
    dv=st.integers(1, 4),
    sizes=SIZES,
    p_visible=st.sampled_from([0.3, 0.7, 1.0]),
    seed=st.integers(0, 2**16),
)
@example(b=1, d=1, dv=1, sizes=[1], p_visible=1.0, seed=0)
@example(b=3, d=5, dv=2, sizes=[7, 3, 5], p_visible=0.7, seed=1)
def test_matches_float64_oracle(impl, b, d, dv, sizes, p_visible, seed):
    q, k, v, mask = arrays(seed, b, d, dv, sum(sizes), p_visible=p_visible)
    state, out = fold_all(impl, q, k, v, mask, sizes)
    assert out.shape == (b, dv) and out.dtype == jnp.float32
    assert [a.shape for a in state] == [(b,), (b,), (b, dv)]
    assert all(a.dtype == jnp.float32 for a in state)
    np.testing.assert_allclose(
        out, attention64(q, k, v, mask), rtol=1e-5, atol=1e-5
    )


@pytest.mark.requirement(2)
@given(
    sizes=st.lists(st.integers(1, 5), min_size=2, max_size=5),
    seed=st.integers(0, 2**16),
    data=st.data(),
)
@example(sizes=[3, 1], seed=0, data=None)
def test_block_order_does_not_matter(impl, sizes, seed, data):
    q, k, v, mask = arrays(seed, 3, 4, 2, sum(sizes), scale=2.0)
    order = list(range(len(sizes)))[::-1]
    if data is not None:
        order = data.draw(st.permutations(range(len(sizes))))
    _, out = fold_all(impl, q, k, v, mask, sizes, order)
    np.testing.assert_allclose(
        out, attention64(q, k, v, mask), rtol=1e-5, atol=1e-5
    )


@pytest.mark.requirement(3)
@given(
    first=st.booleans(),
    c=st.integers(1, 6),
    seed=st.integers(0, 2**16),
)
@example(first=True, c=1, seed=0)
@example(first=False, c=3, seed=0)
def test_invisible_block_changes_nothing(impl, first, c, seed):
    """Row 0 sees nothing of the second block; as the first block folded
    (m = -inf) or after a visible one, its state must not move at all."""
    q, k, v, mask = arrays(seed, 2, 3, 2, 4 + c)
    mask[0, 4:] = False  # the second block is invisible to query 0
    mask[:, :4] = True
    fold = jax.jit(impl.fold_block)
    state = impl.init_state(2, 2)
    if not first:
        state = fold(state, q, k[:4], v[:4], mask[:, :4])
    after = fold(state, q, k[4:], v[4:], mask[:, 4:])
    for before_part, after_part in zip(state, after):
        np.testing.assert_array_equal(after_part[0], before_part[0])


@pytest.mark.requirement(3, 4)
def test_query_that_sees_nothing_is_zero(impl):
    q, k, v, mask = arrays(0, 3, 2, 2, 5)
    mask[1] = False  # query 1 sees no key in any block
    state, out = fold_all(impl, q, k, v, mask, [2, 3])
    assert not np.any(np.isnan(np.asarray(out)))
    np.testing.assert_array_equal(out[1], 0.0)
    assert state[0][1] == -np.inf and state[1][1] == 0.0
    np.testing.assert_allclose(
        out, attention64(q, k, v, mask), rtol=1e-5, atol=1e-5
    )


@pytest.mark.requirement(5)
@given(
    sign=st.sampled_from([1.0, -1.0]),
    scale=st.sampled_from([30.0, 100.0, 300.0]),
    sizes=SIZES,
    seed=st.integers(0, 2**16),
)
@example(sign=-1.0, scale=300.0, sizes=[2, 2], seed=0)
@example(sign=1.0, scale=300.0, sizes=[1, 6], seed=3)
def test_large_scores_stay_finite(impl, sign, scale, sizes, seed):
    """Scores of hundreds, all positive or all negative: exp of them
    overflows or underflows unless each is shifted by the running max."""
    b, d, c = 3, 4, sum(sizes)
    rng = np.random.default_rng(seed)
    q = np.full((b, d), scale, np.float32)
    k = (sign * np.abs(rng.normal(1.0, 0.1, (c, d)))).astype(np.float32)
    v = rng.standard_normal((c, 2)).astype(np.float32)
    mask = rng.random((b, c)) < 0.7
    mask[:, 0] = True
    _, out = fold_all(impl, q, k, v, mask, sizes)
    assert np.all(np.isfinite(np.asarray(out)))
    np.testing.assert_allclose(
        out, attention64(q, k, v, mask), rtol=1e-4, atol=1e-4
    )


@pytest.mark.requirement(6)
@pytest.mark.parametrize("b,dv", [(1, 1), (5, 3)])
def test_init_state(impl, b, dv):
    m, total, acc = impl.init_state(b, dv)
    assert (m.shape, total.shape, acc.shape) == ((b,), (b,), (b, dv))
    assert m.dtype == total.dtype == acc.dtype == jnp.float32
    assert np.all(np.asarray(m) == -np.inf)
    assert not np.any(total) and not np.any(acc)


@pytest.mark.requirement(1)
def test_scores_are_scaled_by_the_query_width(impl):
    """d = 9 and dv = 2: 1 / sqrt(d), not 1 / sqrt(dv) nor no scaling."""
    q, k, v, mask = arrays(5, 2, 9, 2, 4, scale=2.0, p_visible=1.0)
    _, out = fold_all(impl, q, k, v, mask, [4])
    np.testing.assert_allclose(
        out, attention64(q, k, v, mask), rtol=1e-5, atol=1e-5
    )


@pytest.mark.requirement(1)
def test_causal_mask_traced_under_jit(impl):
    """Positions passed as traced arguments: the causal mask is built
    inside jit, as a ring's device builds it from its axis_index."""
    q, k, v, _ = arrays(7, 4, 3, 2, 8)

    @jax.jit
    def run(q, k, v, q_start, k_starts):
        state = impl.init_state(4, 2)
        q_pos = q_start + jnp.arange(4)
        for i, start in enumerate(k_starts):
            k_pos = start + jnp.arange(4)
            mask = k_pos[None, :] <= q_pos[:, None]
            j = slice(4 * i, 4 * i + 4)
            state = impl.fold_block(state, q, k[j], v[j], mask)
        return impl.finish(state)

    # queries at positions 4..7, key blocks at 4..7 (own) then 0..3
    out = run(q, k, v, jnp.int32(4), (jnp.int32(4), jnp.int32(0)))
    positions = np.concatenate([np.arange(4, 8), np.arange(0, 4)])
    mask = positions[None, :] <= np.arange(4, 8)[:, None]
    np.testing.assert_allclose(
        out, attention64(q, k, v, mask), rtol=1e-5, atol=1e-5
    )
