"""Tests for Batched Attention with vmap."""

import jax
import jax.numpy as jnp
import numpy as np

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


def test_single_example_matches_numpy(impl):
    q, k, v = qkv(0, 2, 4, 6, 2, 4)
    out = impl.attention(q[0], k[0], v[0])
    assert out.shape == (4, 2, 4)
    np.testing.assert_allclose(
        out, np_attention(q[0], k[0], v[0]), rtol=1e-5, atol=1e-5
    )


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


def test_batched_matches_jax_nn(impl):
    q, k, v = qkv(1, 2, 4, 6, 2, 4)
    out = impl.batched_attention(q, k, v)
    assert out.shape == (2, 4, 2, 4)
    np.testing.assert_allclose(
        out, jax.nn.dot_product_attention(q, k, v), rtol=1e-5, atol=1e-5
    )


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
