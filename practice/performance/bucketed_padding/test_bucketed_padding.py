"""Tests for Bucketed Padding Without Recompiles."""

import contextlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import example, given, strategies as st

BUCKETS = (16, 8, 64, 32)  # deliberately unsorted


def np_pool(x, w):
    """Reference on the unpadded sequence. x: (n, d), w: (d,) -> (d,)."""
    x, w = np.asarray(x, np.float64), np.asarray(w, np.float64)
    scores = x @ w
    weights = np.exp(scores - scores.max())
    return (weights / weights.sum()) @ x


@pytest.mark.requirement(1, 2)
def test_bucket_length(impl):
    for n, expected in [(1, 8), (8, 8), (9, 16), (17, 32), (33, 64), (64, 64)]:
        assert impl.bucket_length(n, BUCKETS) == expected, n
    for n in [0, 65]:
        with pytest.raises(ValueError):
            impl.bucket_length(n, BUCKETS)


@pytest.mark.requirement(3, 4)
def test_pad_to_bucket(impl):
    x = np.arange(15, dtype=np.float32).reshape(5, 3) + 1
    padded, mask = impl.pad_to_bucket(x, BUCKETS)
    padded, mask = np.asarray(padded), np.asarray(mask)
    assert padded.shape == (8, 3) and padded.dtype == np.float32
    np.testing.assert_array_equal(padded[:5], x)
    np.testing.assert_array_equal(padded[5:], 0)
    assert mask.dtype == np.bool_ and mask.tolist() == [True] * 5 + [False] * 3
    full, full_mask = impl.pad_to_bucket(np.ones((16, 2), np.int32), BUCKETS)
    assert (
        np.asarray(full).shape == (16, 2)
        and np.asarray(full).dtype == np.int32
    )
    assert np.asarray(full_mask).all()


@pytest.mark.requirement(5)
def test_pool_matches_unpadded_reference(impl):
    rng = np.random.default_rng(0)
    w = rng.normal(size=4).astype(np.float32)
    for n in [1, 3, 8, 13]:
        x = rng.normal(size=(n, 4)).astype(np.float32)
        padded = np.zeros((16, 4), np.float32)
        padded[:n] = x
        mask = np.arange(16) < n
        out = impl.masked_attention_pool(
            jnp.asarray(padded), jnp.asarray(mask), jnp.asarray(w)
        )
        assert out.shape == (4,)
        np.testing.assert_allclose(
            out, np_pool(x, w), rtol=1e-5, atol=1e-6, err_msg=f"n={n}"
        )


@pytest.mark.requirement(6)
def test_padding_content_is_ignored(impl):
    rng = np.random.default_rng(1)
    w = jnp.asarray(rng.normal(size=4), jnp.float32)
    x = rng.normal(size=(5, 4)).astype(np.float32)
    mask = jnp.asarray(np.arange(8) < 5)
    for fill in [1e6, np.inf, np.nan]:
        padded = np.full((8, 4), fill, np.float32)
        padded[:5] = x
        out = impl.masked_attention_pool(jnp.asarray(padded), mask, w)
        np.testing.assert_allclose(
            out, np_pool(x, w), rtol=1e-5, atol=1e-6, err_msg=str(fill)
        )


@pytest.mark.requirement(8)
def test_pool_under_jit_with_traced_mask(impl):
    rng = np.random.default_rng(2)
    pool = jax.jit(impl.masked_attention_pool)
    w = rng.normal(size=3).astype(np.float32)
    x = rng.normal(size=(8, 3)).astype(np.float32)
    for n in [2, 5, 8]:
        out = pool(
            jnp.asarray(x), jnp.asarray(np.arange(8) < n), jnp.asarray(w)
        )
        np.testing.assert_allclose(
            out, np_pool(x[:n], w), rtol=1e-5, atol=1e-6
        )


@contextlib.contextmanager
def counting_compilations():
    """Collect the name of every function XLA compiles inside the block (JAX's monitoring events)."""
    names = []

    def listener(event, duration, **kwargs):
        if event == "/jax/core/compile/backend_compile_duration":
            names.append(kwargs.get("fun_name"))

    jax.monitoring.register_event_duration_secs_listener(listener)
    try:
        yield names
    finally:
        jax.monitoring.unregister_event_duration_listener(listener)


@pytest.mark.requirement(9)
def test_at_most_one_compile_per_bucket(impl):
    traced_shapes = []

    def pool(padded, mask, w):
        traced_shapes.append(padded.shape)  # runs only when jit traces
        return impl.masked_attention_pool(padded, mask, w)

    run = impl.bucketed(pool, BUCKETS)
    rng = np.random.default_rng(3)
    w = jnp.asarray(rng.normal(size=4), jnp.float32)
    lengths = rng.integers(1, 65, size=40)
    inputs = [rng.normal(size=(n, 4)).astype(np.float32) for n in lengths]
    with counting_compilations() as compiled:
        outputs = [run(x, w) for x in inputs]
    for x, out in zip(inputs, outputs):
        np.testing.assert_allclose(out, np_pool(x, w), rtol=1e-5, atol=1e-6)
    used = {min(b for b in BUCKETS if b >= n) for n in lengths}
    assert len(set(lengths)) > 20 and len(used) == 4
    assert sorted(traced_shapes) == sorted((b, 4) for b in used), traced_shapes
    assert len(compiled) == len(used), (
        compiled
    )  # XLA compilations, not only traces


@pytest.mark.requirement(10)
def test_bucketed_with_another_function(impl):
    traces = []

    def masked_sum(padded, mask):
        traces.append(1)
        return jnp.sum(jnp.where(mask[:, None], padded, 0), axis=0)

    run = impl.bucketed(masked_sum, (4, 12))
    for n in [1, 2, 3, 4, 5, 9, 12, 3]:
        x = np.arange(n * 2, dtype=np.float32).reshape(n, 2)
        np.testing.assert_array_equal(run(x), x.sum(axis=0))
    assert len(traces) == 2


def bucket_oracle(n, buckets):
    """Brute force: the smallest bucket >= n, or None when none fits."""
    best = None
    for b in buckets:
        if n >= 1 and b >= n and (best is None or b < best):
            best = b
    return best


@pytest.mark.requirement(1, 2)
@given(
    buckets=st.lists(st.integers(1, 40), min_size=1, max_size=5, unique=True),
    n=st.integers(-1, 45),
)
@example(buckets=[8, 3], n=3)
@example(buckets=[8, 3], n=0)
def test_bucket_length_matches_oracle(impl, buckets, n):
    expected = bucket_oracle(n, buckets)
    if expected is None:
        with pytest.raises(ValueError):
            impl.bucket_length(n, buckets)
    else:
        assert impl.bucket_length(n, buckets) == expected


@pytest.mark.requirement(3, 4)
@given(
    n=st.integers(1, 16),
    d=st.sampled_from([1, 3]),
    dtype=st.sampled_from(["float32", "float16", "bfloat16", "int32"]),
)
@example(n=8, d=1, dtype="bfloat16")
def test_pad_to_bucket_matches_oracle(impl, n, d, dtype):
    dtype = jnp.dtype(dtype)
    x = (np.arange(n * d).reshape(n, d) % 7 + 1).astype(dtype)
    padded, mask = impl.pad_to_bucket(x, BUCKETS)
    padded, mask = np.asarray(padded), np.asarray(mask)
    length = 8 if n <= 8 else 16
    assert padded.shape == (length, d) and padded.dtype == dtype
    assert mask.shape == (length,) and mask.dtype == np.bool_
    np.testing.assert_array_equal(padded[:n], x)
    np.testing.assert_array_equal(padded[n:].astype(np.float32), 0)
    np.testing.assert_array_equal(mask, np.arange(length) < n)


@pytest.mark.requirement(5, 6, 7)
@given(
    n=st.integers(1, 8),
    d=st.sampled_from([1, 3]),
    fill=st.sampled_from([0.0, 1e6, -1e6, np.inf, -np.inf, np.nan]),
    magnitude=st.sampled_from([1.0, 300.0]),
    seed=st.integers(0, 2**16),
)
@example(n=1, d=1, fill=np.nan, magnitude=1.0, seed=0)
@example(n=5, d=3, fill=0.0, magnitude=300.0, seed=0)
@example(n=8, d=3, fill=np.nan, magnitude=300.0, seed=1)  # L real rows
@example(n=7, d=1, fill=-np.inf, magnitude=1.0, seed=2)  # one padded row
def test_pool_property(impl, n, d, fill, magnitude, seed):
    """Any real-row count, padding content and score range (300 * x @ w is
    far above exp's float32 range) against the float64 oracle."""
    rng = np.random.default_rng(seed)
    x = (rng.normal(size=(n, d)) * magnitude).astype(np.float32)
    w = rng.normal(size=d).astype(np.float32)
    padded = np.full((8, d), fill, np.float32)
    padded[:n] = x
    out = impl.masked_attention_pool(
        jnp.asarray(padded), jnp.asarray(np.arange(8) < n), jnp.asarray(w)
    )
    assert out.shape == (d,)
    np.testing.assert_allclose(
        out, np_pool(x, w), rtol=1e-4, atol=1e-4 * magnitude
    )


@pytest.mark.requirement(7)
def test_pool_with_scores_beyond_exp_range(impl):
    """Scores 1000 and 999: exp overflows float32, the softmax must not."""
    x = np.array([[1000.0], [999.0], [0.0]], np.float32)
    w = np.ones(1, np.float32)
    out = impl.masked_attention_pool(
        jnp.asarray(x), jnp.asarray([True, True, False]), jnp.asarray(w)
    )
    np.testing.assert_allclose(out, np_pool(x[:2], w), rtol=1e-6)


@pytest.mark.requirement(3, 4)
@given(
    n=st.integers(1, 64),
    d=st.sampled_from([1, 3]),
    dtype=st.sampled_from(["float32", "float16", "bfloat16", "int32"]),
    special=st.sampled_from([np.nan, np.inf, -np.inf, -0.0]),
)
@example(n=1, d=1, dtype="float32", special=np.nan)
@example(n=9, d=3, dtype="float16", special=-0.0)
@example(n=16, d=1, dtype="bfloat16", special=np.inf)
@example(n=17, d=1, dtype="float32", special=-np.inf)
@example(n=33, d=3, dtype="int32", special=-0.0)
@example(n=64, d=3, dtype="float32", special=np.nan)
def test_pad_to_bucket_every_length(impl, n, d, dtype, special):
    """Every n up to the largest bucket (each bucket's first and last length named): the bucket of
    the brute-force oracle, the rows of x copied bit for bit (nan, inf and -0.0 included), zeros
    after them, the mask True on exactly the n real rows; x itself is not changed."""
    dtype = jnp.dtype(dtype)
    x = (np.arange(n * d).reshape(n, d) % 5 - 2).astype(dtype)
    if dtype != np.int32:
        x[n // 2, 0] = special
    original = x.copy()
    padded, mask = impl.pad_to_bucket(x, BUCKETS)
    padded, mask = np.asarray(padded), np.asarray(mask)
    length = bucket_oracle(n, BUCKETS)
    assert padded.shape == (length, d) and padded.dtype == dtype
    assert mask.shape == (length,) and mask.dtype == np.bool_
    assert padded[:n].tobytes() == original.tobytes()
    assert x.tobytes() == original.tobytes(), "pad_to_bucket changed x"
    np.testing.assert_array_equal(padded[n:].astype(np.float32), 0)
    np.testing.assert_array_equal(mask, np.arange(length) < n)
