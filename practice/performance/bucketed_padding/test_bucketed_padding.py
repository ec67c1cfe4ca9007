"""Tests for Bucketed Padding Without Recompiles."""

import contextlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest

BUCKETS = (16, 8, 64, 32)  # deliberately unsorted


def np_pool(x, w):
    """Reference on the unpadded sequence. x: (n, d), w: (d,) -> (d,)."""
    x, w = np.asarray(x, np.float64), np.asarray(w, np.float64)
    scores = x @ w
    weights = np.exp(scores - scores.max())
    return (weights / weights.sum()) @ x


def test_bucket_length(impl):
    for n, expected in [(1, 8), (8, 8), (9, 16), (17, 32), (33, 64), (64, 64)]:
        assert impl.bucket_length(n, BUCKETS) == expected, n
    for n in [0, 65]:
        with pytest.raises(ValueError):
            impl.bucket_length(n, BUCKETS)


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
