"""Tests for Batched Attention with vmap."""

import hypothesis.extra.numpy as hnp
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import example, given, strategies as st

from practice._testing import normal


def np_attention(q, k, v, causal=False):
    """Loop-level NumPy reference for one example. q: (T, N, H), k, v: (S, N, H)."""
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    t_len, n_heads, h = q.shape
    out = np.zeros_like(q)
    for n in range(n_heads):
        for t in range(t_len):
            s_max = t + 1 if causal else k.shape[0]
            logits = np.array(
                [q[t, n] @ k[s, n] for s in range(s_max)]
            ) / np.sqrt(h)
            w = np.exp(logits - logits.max())
            w /= w.sum()
            out[t, n] = sum(w[s] * v[s, n] for s in range(s_max))
    return out


def qkv(seed, b, t, s, n, h):
    return normal(seed, (b, t, n, h), (b, s, n, h), (b, s, n, h))


SHAPES = [(1, 1, 1, 1), (3, 5, 2, 4), (4, 4, 1, 3), (2, 1, 3, 2), (3, 3, 2, 1)]


@st.composite
def examples(draw, batch=None, scales=(1.0, 1000.0)):
    """q (T, N, H), k, v (S, N, H), causal (only when T == S); integer-valued
    q and k times one of scales: with 1000 the logits (up to about 1e7) are
    exact in float32 when computed as written. With batch, a leading axis of
    that size."""
    t, s, n, h = draw(st.sampled_from(SHAPES))
    lead = () if batch is None else (draw(st.sampled_from(batch)),)
    ints = lambda shape: draw(
        hnp.arrays(np.float32, lead + shape, elements=st.integers(-3, 3))
    )
    scale = np.float32(draw(st.sampled_from(scales)))
    q, k = ints((t, n, h)) * scale, ints((s, n, h)) * scale
    v = draw(
        hnp.arrays(
            np.float32, lead + (s, n, h), elements=st.floats(-3, 3, width=32)
        )
    )
    return q, k, v, t == s and draw(st.booleans())


BIG_TIE = (
    np.float32([[[1000]], [[1000]]]),
    np.float32([[[1000]], [[1000]]]),
    np.float32([[[1]], [[3]]]),
    False,
)


@pytest.mark.requirement(1, 2, 4)
@given(examples())
@example(BIG_TIE)
@example((*BIG_TIE[:3], True))
def test_attention_matches_float64_loop(impl, case):
    q, k, v, causal = case
    out = impl.attention(q, k, v, causal=causal)
    assert out.shape == q.shape and out.dtype == jnp.float32
    np.testing.assert_allclose(
        out, np_attention(q, k, v, causal), rtol=1e-5, atol=1e-5
    )


@pytest.mark.requirement(3)
@given(examples(), st.sampled_from([np.inf, -np.inf, np.nan]))
def test_masked_keys_cannot_leak(impl, case, bad):
    q, k, v, _ = case
    last = min(len(q), len(k)) - 1
    q, k, v = q[: last + 1], k[: last + 1], v[: last + 1]
    dirty = k.copy()
    dirty[last] = bad  # seen by the last query only
    out = impl.attention(q, dirty, v, causal=True)
    np.testing.assert_allclose(
        out[:last],
        np_attention(q, k, v, causal=True)[:last],
        rtol=1e-5,
        atol=1e-5,
    )


@pytest.mark.requirement(3)
@given(examples(), st.sampled_from([1e30, -1e30, np.inf, -np.inf, np.nan]))
@example((*(np.float32(a[0]) for a in qkv(2, 1, 3, 3, 1, 2)), True), np.nan)
def test_masked_values_follow_jax_nn(impl, case, bad):
    """A value at the last key, masked for every earlier query: a finite one
    changes nothing (weight exactly 0), a non-finite one makes those rows nan,
    like jax.nn.dot_product_attention; the last row sees it with weight > 0."""
    q, k, v, _ = case
    last = min(len(q), len(k)) - 1
    q, k, v = q[: last + 1], k[: last + 1], v[: last + 1].copy()
    clean = np.asarray(impl.attention(q, k, v, causal=True))
    v[last, 0, 0] = bad
    out = np.asarray(impl.attention(q, k, v, causal=True))
    want = jax.nn.dot_product_attention(
        q[None], k[None], v[None], is_causal=True
    )[0]
    if np.isfinite(bad):
        np.testing.assert_array_equal(out[:last], clean[:last])
    else:
        assert np.isnan(out[:last, 0, 0]).all()
        np.testing.assert_array_equal(out[:last], want[:last])
    np.testing.assert_array_equal(np.isnan(out), np.isnan(want))


@pytest.mark.requirement(5)
# scale 1 only: under jit, XLA may fold 1 / sqrt(H) into an operand of the
# product, and logits near 1e7 then lose their exact ties
@given(examples(batch=[1, 3], scales=(1.0,)))
@example((*(np.float32(a) for a in qkv(8, 3, 4, 4, 1, 3)), True))
def test_batched_matches_jax_nn_and_loop(impl, case):
    q, k, v, causal = case
    f = jax.jit(impl.batched_attention, static_argnames="causal")
    out = f(q, k, v, causal=causal)
    assert out.shape == q.shape and out.dtype == jnp.float32
    expected = jax.nn.dot_product_attention(q, k, v, is_causal=causal)
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)
    for b in range(len(q)):
        np.testing.assert_allclose(
            out[b],
            np_attention(q[b], k[b], v[b], causal),
            rtol=1e-5,
            atol=1e-5,
        )


@pytest.mark.requirement(6)
def test_program_does_not_grow_with_the_batch(impl):
    def size(batch):
        q, k, v = qkv(7, batch, 3, 3, 2, 4)
        f = lambda q, k, v: impl.batched_attention(q, k, v, causal=True)
        return len(jax.make_jaxpr(f)(q, k, v).jaxpr.eqns)

    assert size(5) == size(2), "the program grows with B: a loop"


@pytest.mark.requirement(1)
def test_single_example_matches_numpy(impl):
    q, k, v = qkv(0, 2, 4, 6, 2, 4)
    out = impl.attention(q[0], k[0], v[0])
    assert out.shape == (4, 2, 4)
    np.testing.assert_allclose(
        out, np_attention(q[0], k[0], v[0]), rtol=1e-5, atol=1e-5
    )


@pytest.mark.requirement(1)
def test_hand_computed_values(impl):
    # One head, H=1: logits are q*k. With k = [0, 0] both keys get weight 1/2.
    q = jnp.array([[[3.0]]])
    k = jnp.array([[[0.0]], [[0.0]]])
    v = jnp.array([[[2.0]], [[4.0]]])
    np.testing.assert_allclose(impl.attention(q, k, v), [[[3.0]]], rtol=1e-6)
    # With k = [0, log 3] and q = 1 the weights are 1/4 and 3/4 -> 0.5 + 3.0.
    k = jnp.array([[[0.0]], [[np.log(3.0)]]])
    np.testing.assert_allclose(
        impl.attention(jnp.ones((1, 1, 1)), k, v), [[[3.5]]], rtol=1e-5
    )


@pytest.mark.requirement(5)
def test_batched_matches_jax_nn(impl):
    q, k, v = qkv(1, 2, 4, 6, 2, 4)
    out = impl.batched_attention(q, k, v)
    assert out.shape == (2, 4, 2, 4)
    np.testing.assert_allclose(
        out, jax.nn.dot_product_attention(q, k, v), rtol=1e-5, atol=1e-5
    )


@pytest.mark.requirement(2, 5)
def test_causal_matches_jax_nn(impl):
    q, k, v = qkv(2, 2, 4, 4, 2, 4)
    out = impl.batched_attention(q, k, v, causal=True)
    expected = jax.nn.dot_product_attention(q, k, v, is_causal=True)
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(
        out[1],
        np_attention(q[1], k[1], v[1], causal=True),
        rtol=1e-5,
        atol=1e-5,
    )


@pytest.mark.requirement(2)
def test_causal_first_position_and_future_independence(impl):
    q, k, v = qkv(3, 2, 4, 4, 2, 4)
    out = impl.attention(q[0], k[0], v[0], causal=True)
    np.testing.assert_allclose(
        out[0], v[0, 0], rtol=1e-6
    )  # position 0 sees only itself
    k2 = k.at[0, 3].set(100.0)
    v2 = v.at[0, 3].set(-100.0)
    out2 = impl.attention(q[0], k2[0], v2[0], causal=True)
    np.testing.assert_allclose(
        out2[:3], out[:3], rtol=1e-6
    )  # the future cannot leak back
    assert not np.allclose(out2[3], out[3])


@pytest.mark.requirement(5)
def test_batched_equals_per_example(impl):
    q, k, v = qkv(4, 2, 4, 4, 2, 4)
    out = impl.batched_attention(q, k, v, causal=True)
    for b in range(2):
        np.testing.assert_allclose(
            out[b],
            impl.attention(q[b], k[b], v[b], causal=True),
            rtol=1e-6,
            atol=1e-6,
        )


@pytest.mark.requirement(4)
def test_large_logits_stay_finite(impl):
    q, k, v = qkv(5, 2, 4, 6, 2, 4)
    out = impl.batched_attention(q * 1e3, k * 1e3, v)
    assert np.all(np.isfinite(out))
    np.testing.assert_allclose(
        out,
        jax.nn.dot_product_attention(q * 1e3, k * 1e3, v),
        rtol=1e-4,
        atol=1e-4,
    )


@pytest.mark.requirement(5)
def test_under_jit(impl):
    q, k, v = qkv(6, 2, 4, 4, 2, 4)
    f = jax.jit(impl.batched_attention, static_argnames="causal")
    for causal in (False, True):
        np.testing.assert_allclose(
            f(q, k, v, causal=causal),
            jax.nn.dot_product_attention(q, k, v, is_causal=causal),
            rtol=1e-5,
            atol=1e-5,
        )
