"""Tests for KV Cache Update."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import example, given, strategies as st
from hypothesis.extra import numpy as hnp

from practice._testing import normal

B, L, K, H = 3, 8, 2, 4


def random_tokens(seed, s):
    return normal(seed, (B, s, K, H), (B, s, K, H))


def np_update(cache, k_new, v_new, pos):
    k, v = np.array(cache["k"]), np.array(cache["v"])
    for b in range(k.shape[0]):
        for s in range(k_new.shape[1]):
            k[b, pos[b] + s] = k_new[b, s]
            v[b, pos[b] + s] = v_new[b, s]
    return k, v


def filled_cache(seed=99):
    k, v = random_tokens(seed, L)
    return {"k": k, "v": v}


@pytest.mark.requirement(1)
def test_init(impl):
    cache = impl.init_kv_cache(B, L, K, H)
    assert set(cache) == {"k", "v"}
    for buf in cache.values():
        assert buf.shape == (B, L, K, H) and buf.dtype == jnp.float32
        np.testing.assert_array_equal(buf, np.zeros((B, L, K, H)))
    assert (
        impl.init_kv_cache(1, 2, 1, 2, dtype=jnp.bfloat16)["k"].dtype
        == jnp.bfloat16
    )


@pytest.mark.requirement(2)
def test_single_token_hand_values(impl):
    cache = impl.init_kv_cache(2, 3, 1, 2)
    k_new = jnp.array([[[[1.0, 2.0]]], [[[3.0, 4.0]]]])  # (B=2, S=1, K=1, H=2)
    out = impl.update_kv_cache(
        cache, k_new, -k_new, jnp.array([2, 0], jnp.int32)
    )
    expected_k = np.zeros((2, 3, 1, 2))
    expected_k[0, 2, 0] = [1.0, 2.0]
    expected_k[1, 0, 0] = [3.0, 4.0]
    np.testing.assert_array_equal(out["k"], expected_k)
    np.testing.assert_array_equal(out["v"], -expected_k)


@pytest.mark.requirement(2)
def test_several_tokens_at_per_sequence_positions(impl):
    cache = filled_cache()
    k_new, v_new = random_tokens(1, 3)
    pos = np.array([0, 5, 2], np.int32)
    out = impl.update_kv_cache(cache, k_new, v_new, jnp.asarray(pos))
    ek, ev = np_update(cache, np.asarray(k_new), np.asarray(v_new), pos)
    np.testing.assert_array_equal(out["k"], ek)
    np.testing.assert_array_equal(out["v"], ev)


@pytest.mark.requirement(3)
def test_input_cache_unchanged(impl):
    cache = filled_cache()
    before = {name: np.array(buf) for name, buf in cache.items()}
    k_new, v_new = random_tokens(2, 2)
    out = impl.update_kv_cache(
        cache, k_new, v_new, jnp.array([1, 1, 1], jnp.int32)
    )
    for name in ("k", "v"):
        np.testing.assert_array_equal(cache[name], before[name])
        assert not np.array_equal(out[name], before[name])


@pytest.mark.requirement(4)
def test_under_jit_traced_position_compiles_once(impl):
    traces = []

    def update(cache, k_new, v_new, pos):
        traces.append(1)  # runs once per trace, not per call
        return impl.update_kv_cache(cache, k_new, v_new, pos)

    step = jax.jit(update)
    cache = filled_cache()
    for i, pos in enumerate([[0, 1, 2], [7, 6, 5], [3, 3, 3]]):
        k_new, v_new = random_tokens(10 + i, 1)
        out = step(cache, k_new, v_new, jnp.array(pos, jnp.int32))
        ek, ev = np_update(cache, np.asarray(k_new), np.asarray(v_new), pos)
        np.testing.assert_array_equal(out["k"], ek)
        np.testing.assert_array_equal(out["v"], ev)
    assert len(traces) == 1


@pytest.mark.requirement(5)
def test_decoding_token_by_token_rebuilds_the_sequence(impl):
    k_all, v_all = random_tokens(3, L)
    cache = impl.init_kv_cache(B, L, K, H)
    step = jax.jit(impl.update_kv_cache)
    for t in range(L):
        pos = jnp.full((B,), t, jnp.int32)
        cache = step(cache, k_all[:, t : t + 1], v_all[:, t : t + 1], pos)
    np.testing.assert_array_equal(cache["k"], k_all)
    np.testing.assert_array_equal(cache["v"], v_all)


@pytest.mark.requirement(6)
def test_casts_to_cache_dtype(impl):
    cache = impl.init_kv_cache(B, L, K, H, dtype=jnp.bfloat16)
    k_new, v_new = random_tokens(4, 2)  # float32
    out = impl.update_kv_cache(
        cache, k_new, v_new, jnp.array([0, 2, 4], jnp.int32)
    )
    assert out["k"].dtype == jnp.bfloat16 and out["v"].dtype == jnp.bfloat16
    np.testing.assert_array_equal(
        out["k"][1, 2:4], k_new[1].astype(jnp.bfloat16)
    )


@pytest.mark.requirement(1)
@pytest.mark.parametrize("dtype", [jnp.bfloat16, jnp.float16])
def test_init_in_a_low_precision_dtype(impl, dtype):
    cache = impl.init_kv_cache(2, 3, 1, 5, dtype=dtype)
    for buf in cache.values():
        assert buf.shape == (2, 3, 1, 5) and buf.dtype == dtype
        np.testing.assert_array_equal(np.asarray(buf, np.float32), 0)


# (B, L, K, H, S): B = 1, L = S = 1, odd sizes, a write that fills the cache
SHAPES = [(1, 1, 1, 1, 1), (2, 5, 1, 3, 2), (3, 4, 2, 2, 4), (2, 6, 1, 2, 1)]
DTYPES = {
    "float32": jnp.float32,
    "bfloat16": jnp.bfloat16,
    "float16": jnp.float16,
}
ANY = st.floats(width=32, allow_nan=True, allow_infinity=True)


@st.composite
def updates(draw):
    """An old cache of any values (inf and nan too), new rows, positions in
    0..L - S, and the cache dtype."""
    b, max_len, kv, h, s = draw(st.sampled_from(SHAPES))
    dtype = DTYPES[draw(st.sampled_from(sorted(DTYPES)))]
    old_k, old_v = (
        jnp.asarray(
            draw(hnp.arrays(np.float32, (b, max_len, kv, h), elements=ANY)),
            dtype,
        )
        for _ in range(2)
    )
    k_new, v_new = (
        draw(hnp.arrays(np.float32, (b, s, kv, h), elements=ANY))
        for _ in range(2)
    )
    pos = draw(st.lists(st.integers(0, max_len - s), min_size=b, max_size=b))
    return {"k": old_k, "v": old_v}, k_new, v_new, np.array(pos, np.int32)


@pytest.mark.requirement(2, 6, 7)
# float32 values beyond float16's range become inf when cast: intended
@pytest.mark.filterwarnings("ignore:overflow encountered in cast")
@given(args=updates())
@example(
    args=(
        {
            "k": jnp.full((1, 3, 1, 1), jnp.inf),
            "v": jnp.full((1, 3, 1, 1), jnp.nan),
        },
        np.ones((1, 1, 1, 1), np.float32),
        np.full((1, 1, 1, 1), 2.0, np.float32),
        np.array([2], np.int32),  # the last row: pos = L - S
    )
)
@example(
    args=(
        {  # -0.0 written over 0.0 and kept where it was
            "k": jnp.asarray(np.float32([[[[0.0]], [[-0.0]]]])),
            "v": jnp.asarray(np.float32([[[[-0.0]], [[0.0]]]])),
        },
        np.full((1, 1, 1, 1), -0.0, np.float32),
        np.full((1, 1, 1, 1), -0.0, np.float32),
        np.array([0], np.int32),
    )
)
def test_property_matches_numpy_loop(impl, args):
    cache, k_new, v_new, pos = args
    out = jax.jit(impl.update_kv_cache)(cache, k_new, v_new, jnp.asarray(pos))
    dtype = cache["k"].dtype
    expected = np_update(cache, k_new.astype(dtype), v_new.astype(dtype), pos)
    for name, want in zip(["k", "v"], expected):
        assert out[name].dtype == dtype and out[name].shape == want.shape
        # as float32: NumPy's comparison counts a bfloat16 nan as unequal
        got, want = (
            np.asarray(out[name], np.float32),
            np.asarray(want, np.float32),
        )
        np.testing.assert_array_equal(got, want, name)
        # bit for bit: array_equal counts -0.0 equal to 0.0; the sign must stay too
        numbers = ~np.isnan(want)
        np.testing.assert_array_equal(
            np.signbit(got[numbers]), np.signbit(want[numbers]), name
        )
