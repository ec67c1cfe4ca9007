"""Tests for Grouped-Query Attention Decode Step."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from practice._testing import normal

B, L, H = 2, 7, 4


def naive_decode(q, k_cache, v_cache, lengths):
    """Reference: repeat every KV head for its query heads, then plain masked attention (NumPy)."""
    q, k_cache, v_cache = (
        np.asarray(a, np.float64) for a in (q, k_cache, v_cache)
    )
    n, kv = q.shape[1], k_cache.shape[2]
    k_rep = np.repeat(k_cache, n // kv, axis=2)  # (B, L, N, H)
    v_rep = np.repeat(v_cache, n // kv, axis=2)
    out = np.zeros_like(q)
    for b in range(q.shape[0]):
        valid = int(lengths[b])
        for head in range(n):
            s = k_rep[b, :valid, head] @ q[b, head] / np.sqrt(q.shape[-1])
            w = np.exp(s - s.max())
            out[b, head] = (w / w.sum()) @ v_rep[b, :valid, head]
    return out


def inputs(seed, n, kv, lengths=(3, 7)):
    q, k, v = normal(seed, (B, n, H), (B, L, kv, H), (B, L, kv, H))
    return q, k, v, jnp.array(lengths, jnp.int32)


@pytest.mark.parametrize("n,kv", [(8, 2), (6, 3), (4, 4), (4, 1)])
def test_matches_naive_repeat_kv(impl, n, kv):
    q, k, v, lengths = inputs(0, n, kv)
    out = impl.gqa_decode_step(q, k, v, lengths)
    assert out.shape == (B, n, H) and out.dtype == jnp.float32
    np.testing.assert_allclose(
        out, naive_decode(q, k, v, lengths), rtol=1e-5, atol=1e-5
    )


def test_matches_jax_nn_dot_product_attention(impl):
    q, k, v, lengths = inputs(1, 8, 2, lengths=(5, 2))
    out = impl.gqa_decode_step(q, k, v, lengths)
    expected = jax.nn.dot_product_attention(
        q[:, None], k, v, key_value_seq_lengths=lengths
    )[:, 0]
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)


def test_length_one_returns_first_value_of_the_group(impl):
    q, k, v, _ = inputs(2, 6, 2)
    out = impl.gqa_decode_step(q, k, v, jnp.array([1, 1], jnp.int32))
    for head in range(
        6
    ):  # heads 0-2 share KV head 0, heads 3-5 share KV head 1
        np.testing.assert_allclose(out[:, head], v[:, 0, head // 3], rtol=1e-6)


def test_garbage_after_length_is_ignored(impl):
    q, k, v, lengths = inputs(3, 4, 2, lengths=(2, 4))
    out = impl.gqa_decode_step(q, k, v, lengths)
    k_bad = k.at[0, 2:].set(1e4).at[1, 4:].set(-1e4)
    v_bad = v.at[0, 2:].set(1e4).at[1, 4:].set(1e4)
    np.testing.assert_allclose(
        impl.gqa_decode_step(q, k_bad, v_bad, lengths), out, rtol=1e-6
    )


def test_under_jit_with_traced_lengths(impl):
    q, k, v, _ = inputs(4, 8, 4)
    step = jax.jit(impl.gqa_decode_step)
    for lengths in ([1, 7], [6, 3]):
        lengths = jnp.array(lengths, jnp.int32)
        np.testing.assert_allclose(
            step(q, k, v, lengths),
            naive_decode(q, k, v, lengths),
            rtol=1e-5,
            atol=1e-5,
        )


def intermediate_sizes(jaxpr):
    """Element counts of every value computed inside a jaxpr, including nested jaxprs."""
    jaxpr = getattr(jaxpr, "jaxpr", jaxpr)  # a closed jaxpr wraps the jaxpr
    for eqn in jaxpr.eqns:
        for var in eqn.outvars:
            yield int(np.prod(var.aval.shape))
        for param in eqn.params.values():
            for sub in param if isinstance(param, (tuple, list)) else [param]:
                if hasattr(
                    getattr(sub, "jaxpr", sub), "eqns"
                ):  # e.g. the body of a pjit
                    yield from intermediate_sizes(sub)


def test_does_not_materialise_repeated_cache(impl):
    n, kv = 8, 2
    q, k, v, lengths = inputs(5, n, kv)
    closed = jax.make_jaxpr(impl.gqa_decode_step)(q, k, v, lengths)
    sizes = list(intermediate_sizes(closed))
    assert sizes and max(sizes) < B * L * n * H
