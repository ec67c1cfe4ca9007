"""Tests for Grouped-Query Attention Decode Step."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import example, given, strategies as st
from hypothesis.extra import numpy as hnp

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


@pytest.mark.requirement(1)
@pytest.mark.parametrize("n,kv", [(8, 2), (6, 3), (4, 4), (4, 1)])
def test_matches_naive_repeat_kv(impl, n, kv):
    q, k, v, lengths = inputs(0, n, kv)
    out = impl.gqa_decode_step(q, k, v, lengths)
    assert out.shape == (B, n, H) and out.dtype == jnp.float32
    np.testing.assert_allclose(
        out, naive_decode(q, k, v, lengths), rtol=1e-5, atol=1e-5
    )


@pytest.mark.requirement(2)
def test_matches_jax_nn_dot_product_attention(impl):
    q, k, v, lengths = inputs(1, 8, 2, lengths=(5, 2))
    out = impl.gqa_decode_step(q, k, v, lengths)
    expected = jax.nn.dot_product_attention(
        q[:, None], k, v, key_value_seq_lengths=lengths
    )[:, 0]
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.requirement(3)
def test_length_one_returns_first_value_of_the_group(impl):
    q, k, v, _ = inputs(2, 6, 2)
    out = impl.gqa_decode_step(q, k, v, jnp.array([1, 1], jnp.int32))
    for head in range(
        6
    ):  # heads 0-2 share KV head 0, heads 3-5 share KV head 1
        np.testing.assert_allclose(out[:, head], v[:, 0, head // 3], rtol=1e-6)


@pytest.mark.requirement(4)
def test_garbage_after_length_is_ignored(impl):
    q, k, v, lengths = inputs(3, 4, 2, lengths=(2, 4))
    out = impl.gqa_decode_step(q, k, v, lengths)
    k_bad = k.at[0, 2:].set(1e4).at[1, 4:].set(-1e4)
    v_bad = v.at[0, 2:].set(1e4).at[1, 4:].set(1e4)
    np.testing.assert_allclose(
        impl.gqa_decode_step(q, k_bad, v_bad, lengths), out, rtol=1e-6
    )


@pytest.mark.requirement(7)
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


@pytest.mark.requirement(8)
def test_does_not_materialise_repeated_cache(impl):
    n, kv = 8, 2
    q, k, v, lengths = inputs(5, n, kv)
    closed = jax.make_jaxpr(impl.gqa_decode_step)(q, k, v, lengths)
    sizes = list(intermediate_sizes(closed))
    assert sizes and max(sizes) < B * L * n * H


@pytest.mark.requirement(8)
@pytest.mark.parametrize(
    "b,length,n,kv,h",
    [
        (2, 7, 8, 2, 4),
        (1, 1, 6, 3, 3),  # L = 1: the output is the bound
        (2, 5, 4, 1, 2),
        (2, 5, 4, 4, 4),  # N = K: the cache is the bound
        (2, 5, 6, 3, 1),  # H = 1: the scores are the bound
        (1, 3, 4, 1, 1),
    ],
)
def test_no_value_exceeds_the_cache_or_the_scores(impl, b, length, n, kv, h):
    """The bound of requirement 8 for every shape; a repeated cache breaks it
    exactly where N > K, L > 1 and H > 1."""
    q, k, v = normal(
        b + length + n, (b, n, h), (b, length, kv, h), (b, length, kv, h)
    )
    lengths = jnp.full((b,), length, jnp.int32)
    closed = jax.make_jaxpr(impl.gqa_decode_step)(q, k, v, lengths)
    bound = max(b * length * kv * h, b * length * n, b * n * h)
    sizes = list(intermediate_sizes(closed))
    assert sizes and max(sizes) <= bound, (max(sizes), bound)
    np.testing.assert_allclose(
        impl.gqa_decode_step(q, k, v, lengths),
        naive_decode(q, k, v, lengths),
        rtol=1e-5,
        atol=1e-5,
    )


@pytest.mark.requirement(4)
def test_non_finite_garbage_is_ignored(impl):
    q, k, v, lengths = inputs(6, 4, 2, lengths=(2, 5))
    out = impl.gqa_decode_step(q, k, v, lengths)
    for bad in [np.inf, -np.inf, np.nan]:
        k_bad = k.at[0, 2:].set(bad).at[1, 5:].set(bad)
        v_bad = v.at[0, 2:].set(bad).at[1, 5:].set(bad)
        np.testing.assert_allclose(
            impl.gqa_decode_step(q, k_bad, v_bad, lengths),
            out,
            rtol=1e-6,
            err_msg=f"{bad} in the rows past the lengths",
        )


@pytest.mark.requirement(5)
def test_large_scores_are_stable(impl):
    q, k, v, lengths = inputs(7, 8, 2)
    q, k = 100 * q, 100 * k  # scores of order 1e4: exp overflows float32
    out = impl.gqa_decode_step(q, k, v, lengths)
    np.testing.assert_allclose(
        out, naive_decode(q, k, v, lengths), rtol=1e-4, atol=1e-4
    )


@pytest.mark.requirement(6)
@pytest.mark.parametrize("dtype", [jnp.bfloat16, jnp.float16])
def test_keeps_the_dtype_of_q(impl, dtype):
    q, k, v, lengths = (
        x.astype(dtype) if x.dtype == jnp.float32 else x
        for x in inputs(8, 6, 3)
    )
    out = impl.gqa_decode_step(q, k, v, lengths)
    assert out.dtype == dtype and out.shape == q.shape
    np.testing.assert_allclose(
        np.asarray(out, np.float32),
        naive_decode(q, k, v, lengths),
        rtol=3e-2,
        atol=3e-2,
    )


# (B, L, N, K, H): B = 1, L = 1, odd H, multi-query and multi-head
SHAPES = [(1, 1, 4, 1, 3), (2, 5, 6, 3, 4), (3, 4, 8, 2, 2), (1, 3, 2, 2, 5)]
DTYPES = {
    "float32": jnp.float32,
    "bfloat16": jnp.bfloat16,
    "float16": jnp.float16,
}
TOL = {"float32": 1e-4, "bfloat16": 5e-2, "float16": 5e-3}


@st.composite
def decode_inputs(draw):
    """q, k, v of one dtype, lengths in 1..L, garbage past each length."""
    b, max_len, n, kv, h = draw(st.sampled_from(SHAPES))
    dtype = draw(st.sampled_from(sorted(DTYPES)))
    scale = draw(st.sampled_from([1.0, 100.0])) if dtype == "float32" else 1
    unit = st.floats(-1, 1, width=32)
    q, k, v = (
        scale * draw(hnp.arrays(np.float32, shape, elements=unit))
        for shape in [(b, n, h), (b, max_len, kv, h), (b, max_len, kv, h)]
    )
    lengths = np.array(
        draw(st.lists(st.integers(1, max_len), min_size=b, max_size=b))
    )
    garbage = np.arange(max_len)[None, :] >= lengths[:, None]
    fill = draw(st.sampled_from([1e4, np.inf, -np.inf, np.nan]))
    k[garbage], v[garbage] = fill, fill
    cast = [jnp.asarray(x, DTYPES[dtype]) for x in (q, k, v)]
    return (*cast, jnp.asarray(lengths, jnp.int32))


@pytest.mark.requirement(1, 4, 5, 6)
@given(args=decode_inputs())
@example(
    args=(
        jnp.ones((1, 4, 3)),
        jnp.ones((1, 1, 1, 3)),
        jnp.full((1, 1, 1, 3), 2.0),
        jnp.array([1], jnp.int32),
    )
)
def test_property_matches_float64_loop(impl, args):
    q = args[0]
    out = jax.jit(impl.gqa_decode_step)(*args)
    assert out.shape == q.shape and out.dtype == q.dtype
    tol = TOL[jnp.dtype(q.dtype).name]
    np.testing.assert_allclose(
        np.asarray(out, np.float64), naive_decode(*args), rtol=tol, atol=tol
    )
