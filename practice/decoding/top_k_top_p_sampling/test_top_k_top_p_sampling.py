"""Tests for Top-k and Top-p Sampling."""

import hypothesis.extra.numpy as hnp
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import assume, example, given, strategies as st

from practice._testing import extreme_uniform

NEG = -np.inf


def np_probs(logits, temperature=1.0, top_k=None, top_p=None):
    """Reference distribution of one row, written with NumPy loops over sorted tokens."""
    z = np.asarray(logits, np.float64) / temperature
    if top_k is not None:
        order = np.argsort(-z, kind="stable")
        z = np.where(np.isin(np.arange(z.size), order[:top_k]), z, NEG)
    if top_p is not None:
        probs = np.exp(z - z.max())
        probs /= probs.sum()
        order = np.argsort(-z, kind="stable")
        keep = np.zeros(z.size, bool)
        mass = 0.0
        for i in order:
            if mass < top_p:
                keep[i] = True
            mass += probs[i]
        z = np.where(keep, z, NEG)
    probs = np.exp(z - z.max())
    return probs / probs.sum()


def empirical(tokens, vocab):
    return (
        np.bincount(np.asarray(tokens).ravel(), minlength=vocab)
        / np.asarray(tokens).size
    )


def tv(a, b):
    return 0.5 * np.abs(np.asarray(a) - np.asarray(b)).sum()


@pytest.mark.requirement(1)
def test_top_k_filter_values_and_ties(impl):
    logits = jnp.array([1.0, 3.0, 3.0, 2.0, 0.5])
    np.testing.assert_array_equal(
        impl.top_k_filter(logits, 1), [NEG, 3.0, NEG, NEG, NEG]
    )
    np.testing.assert_array_equal(
        impl.top_k_filter(logits, 2), [NEG, 3.0, 3.0, NEG, NEG]
    )
    np.testing.assert_array_equal(
        impl.top_k_filter(logits, 3), [NEG, 3.0, 3.0, 2.0, NEG]
    )
    np.testing.assert_array_equal(impl.top_k_filter(logits, 5), logits)
    out = impl.top_k_filter(
        jnp.zeros((2, 4)), 2
    )  # all tied: the first two survive
    np.testing.assert_array_equal(out, [[0, 0, NEG, NEG]] * 2)
    assert out.dtype == jnp.float32


@pytest.mark.requirement(1)
def test_top_k_filter_is_row_wise(impl):
    logits = jnp.array([[0.0, 1.0, 2.0, 3.0], [3.0, 2.0, 1.0, 0.0]])
    np.testing.assert_array_equal(
        impl.top_k_filter(logits, 2),
        [[NEG, NEG, 2.0, 3.0], [3.0, 2.0, NEG, NEG]],
    )
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 3, 11)).astype(np.float32)
    out = np.asarray(impl.top_k_filter(jnp.asarray(x), 4))
    assert out.shape == x.shape
    assert (np.isfinite(out).sum(-1) == 4).all()
    kept_min = np.where(np.isfinite(out), out, np.inf).min(-1)
    dropped_max = np.where(np.isfinite(out), -np.inf, x).max(-1)
    assert (kept_min > dropped_max).all()


@pytest.mark.requirement(2)
def test_top_p_filter_values(impl):
    logits = jnp.log(jnp.array([0.5, 0.2, 0.2, 0.1]))

    def kept(p):
        return np.isfinite(np.asarray(impl.top_p_filter(logits, p))).tolist()

    assert kept(0.3) == [True, False, False, False]
    assert kept(0.6) == [
        True,
        True,
        False,
        False,
    ]  # tie between 1 and 2: index 1 first
    assert kept(0.75) == [True, True, True, False]
    assert kept(1.0) == [True, True, True, True]
    out = impl.top_p_filter(logits, 0.6)
    np.testing.assert_array_equal(
        np.asarray(out)[:2], np.asarray(logits)[:2]
    )  # kept values unchanged


@pytest.mark.requirement(2, 4)
@given(
    logits=hnp.arrays(
        np.float32,
        st.integers(1, 6),
        elements=st.floats(-300, 300, width=32) | st.just(NEG),
    ),
    p=st.sampled_from([1.0, 1.5, np.inf]),
    traced=st.booleans(),
)
@example(logits=np.float32([0, -20, -3]), p=1.0, traced=False)
@example(logits=np.float32([0, -20, -3]), p=1.0, traced=True)
@example(logits=np.float32([0, -200]), p=1.0, traced=False)
@example(logits=np.float32([5, NEG, -90, 5]), p=1.0, traced=True)
def test_top_p_filter_p_one_keeps_every_token(impl, logits, p, traced):
    """p >= 1 returns the logits unchanged, though the float32 mass before
    a tiny last token can round to exactly 1 ([0, -20, -3])."""
    assume(np.isfinite(logits).any())
    f = jax.jit(impl.top_p_filter) if traced else impl.top_p_filter
    out = f(jnp.asarray(logits), jnp.float32(p) if traced else p)
    np.testing.assert_array_equal(out, logits)


@pytest.mark.requirement(2)
def test_top_p_filter_p_just_above_one_keeps_every_token(impl):
    """For these logits the float32 mass before some token reaches
    1.0000001, the float32 right above 1: p >= 1 still keeps them all."""
    rng = np.random.default_rng(5)
    z = rng.normal(size=rng.integers(2, 3000)) * rng.choice([0.1, 1, 5])
    z = jnp.asarray(z, jnp.float32)
    p = np.nextafter(np.float32(1), np.float32(2))
    np.testing.assert_array_equal(impl.top_p_filter(z, p), z)


@pytest.mark.requirement(2)
@pytest.mark.parametrize("p,kept", [(0.25, 1), (0.5, 2), (0.75, 3), (1.0, 4)])
def test_top_p_filter_mass_exactly_p_is_not_below_p(impl, p, kept):
    """Four equal logits: masses before are exactly 0, 0.25, 0.5, 0.75 in
    float32, so a token whose mass before equals p is dropped (< p, not
    <= p), lowest indices first."""
    out = np.asarray(impl.top_p_filter(jnp.zeros(4), p))
    assert np.isfinite(out).tolist() == [True] * kept + [False] * (4 - kept)


@pytest.mark.requirement(3)
def test_top_p_filter_unsorted_rows(impl):
    logits = jnp.log(
        jnp.array([[0.1, 0.2, 0.5, 0.2], [0.25, 0.25, 0.25, 0.25]])
    )
    out = np.asarray(impl.top_p_filter(logits, 0.6))
    assert np.isfinite(out).tolist() == [
        [False, True, True, False],
        [True, True, True, False],
    ]


@pytest.mark.requirement(4)
def test_top_p_filter_traced_p(impl):
    logits = jnp.log(jnp.array([0.5, 0.2, 0.2, 0.1]))
    f = jax.jit(impl.top_p_filter)
    assert np.isfinite(np.asarray(f(logits, jnp.float32(0.6)))).tolist() == [
        True,
        True,
        False,
        False,
    ]
    assert np.isfinite(np.asarray(f(logits, jnp.float32(0.3)))).tolist() == [
        True,
        False,
        False,
        False,
    ]


@pytest.mark.requirement(6)
def test_sample_shape_dtype_and_support(impl):
    logits = jnp.array([[1.0, 3.0, 3.0, 2.0, 0.5]] * 500)
    tokens = impl.sample(jax.random.key(0), logits, top_k=2)
    assert tokens.shape == (500,) and tokens.dtype == jnp.int32
    assert set(np.asarray(tokens).tolist()) == {1, 2}


@pytest.mark.requirement(6)
@pytest.mark.parametrize("end", ["lowest", "highest"])
def test_no_filtered_token_even_at_extreme_draws(impl, end):
    """Filtered tokens first and last in the row: a key whose uniform draws
    are all 0.0 (or all just below 1) must not reach them either."""
    logits = jnp.array(
        [[-1.0, 3.0, 3.0, 2.0, -2.0], [0.0, 2.0, 1.0, 5.0, 0.0]]
    )
    cases = [  # (arguments, the tokens each row keeps)
        (dict(top_k=2), [{1, 2}, {1, 3}]),
        # probabilities after top-k: (0.42, 0.42, 0.16) and (0.94, 0.05, 0.02)
        (dict(top_k=3, top_p=0.9), [{1, 2, 3}, {3}]),
    ]
    # without jit: a solution jitted at module level must not cache a trace of
    # the stand-in for later tests
    with pytest.MonkeyPatch.context() as patch, jax.disable_jit():
        patch.setattr(jax.random, "uniform", extreme_uniform(end))
        for kw, kept in cases:
            tokens = np.asarray(impl.sample(jax.random.key(0), logits, **kw))
            for row, token in enumerate(tokens.tolist()):
                assert token in kept[row], (kw, row, token)


@pytest.mark.requirement(6)
def test_top_p_sees_the_top_k_renormalised_distribution(impl):
    # after top_k=2 the probabilities are 4/7 and 3/7, so top_p=0.5 keeps only token 0
    logits = jnp.log(jnp.array([[0.4, 0.3, 0.2, 0.05, 0.05]] * 500))
    tokens = impl.sample(jax.random.key(1), logits, top_k=2, top_p=0.5)
    assert (np.asarray(tokens) == 0).all()


@pytest.mark.requirement(7)
def test_sampling_distribution_matches_reference(impl):
    base = np.array([2.0, 1.0, 0.5, 0.0, -1.0, 0.3], np.float32)
    n = 20000
    logits = jnp.asarray(np.tile(base, (n, 1)))
    cases = [
        dict(),
        dict(temperature=0.5),
        dict(temperature=2.0, top_p=0.5),
        dict(top_k=3),
        dict(top_k=4, top_p=0.8),
        dict(temperature=1.5, top_k=5, top_p=0.9),
    ]
    for i, kw in enumerate(cases):
        tokens = impl.sample(jax.random.key(10 + i), logits, **kw)
        expected = np_probs(base, **kw)
        distance = tv(empirical(tokens, base.size), expected)
        assert distance < 0.02, (kw, distance)


@pytest.mark.requirement(7)
def test_sample_with_vmapped_keys(impl):
    logits = jnp.array([0.0, 1.0, 2.0, 0.5])
    keys = jax.random.split(jax.random.key(3), 20000)
    tokens = jax.jit(jax.vmap(lambda k: impl.sample(k, logits, top_p=0.9)))(
        keys
    )
    assert tv(empirical(tokens, 4), np_probs(logits, top_p=0.9)) < 0.02


@pytest.mark.requirement(8)
def test_sample_jit_with_traced_temperature_and_p(impl):
    key = jax.random.key(4)
    logits = jax.random.normal(jax.random.key(5), (500, 5))
    eager = impl.sample(key, logits, temperature=0.7, top_k=3, top_p=0.9)
    f = jax.jit(impl.sample, static_argnames="top_k")
    jitted = f(
        jax.random.clone(key),
        logits,
        temperature=jnp.float32(0.7),
        top_k=3,
        top_p=jnp.float32(0.9),
    )  # the same key on purpose
    np.testing.assert_array_equal(eager, jitted)
    again = impl.sample(
        jax.random.clone(key), logits, temperature=0.7, top_k=3, top_p=0.9
    )
    np.testing.assert_array_equal(eager, again)  # same key, same tokens


def np_top_k(z, k):
    """float64 oracle, row by row: stable sort, lower index wins ties."""
    z = np.asarray(z, np.float64)
    out = np.full_like(z, NEG)
    for idx in np.ndindex(z.shape[:-1]):
        order = np.argsort(-z[idx], kind="stable")[:k]
        out[idx][order] = z[idx][order]
    return out


def np_top_p_keep(z, p):
    """float64 oracle of one row: keep token i iff the mass before it < p;
    also returns the smallest distance between p and a mass before."""
    z = np.asarray(z, np.float64)
    probs = np.exp(z - z.max())
    probs /= probs.sum()
    keep, mass, gap = np.zeros(z.size, bool), 0.0, np.inf
    for i in np.argsort(-z, kind="stable"):
        keep[i] = mass < p
        gap = min(gap, abs(mass - p))
        mass += probs[i]
    return keep, gap


@pytest.mark.requirement(1)
@given(
    shape=st.sampled_from([(5,), (1, 1), (3, 4), (2, 1, 7)]),
    k_frac=st.floats(0, 1),
    dtype=st.sampled_from(["float32", "bfloat16", "float16"]),
    seed=st.integers(0, 2**16),
    coarse=st.booleans(),
)
@example(shape=(5,), k_frac=0.5, dtype="bfloat16", seed=0, coarse=True)
def test_top_k_filter_property(impl, shape, k_frac, dtype, seed, coarse):
    """Any rank, k from 1 to V, ties (coarse values), three dtypes."""
    z = np.random.default_rng(seed).normal(size=shape) * 3
    if coarse:  # + 0.0: no -0.0 (lax.top_k orders it below 0.0)
        z = np.round(z) + 0.0
    x = jnp.asarray(z.astype(np.float32), dtype)
    k = 1 + int(k_frac * (shape[-1] - 1))
    out = impl.top_k_filter(x, k)
    assert out.shape == x.shape and out.dtype == x.dtype
    want = np_top_k(np.asarray(x.astype(jnp.float32)), k)
    np.testing.assert_array_equal(np.asarray(out.astype(jnp.float32)), want)


@pytest.mark.requirement(2, 3, 5)
@given(
    vocab=st.sampled_from([1, 4, 7]),
    p=st.floats(0.01, 1.0),
    seed=st.integers(0, 2**16),
    magnitude=st.sampled_from([1.0, 1000.0]),
    masked=st.integers(0, 3),
)
@example(vocab=4, p=1.0, seed=0, magnitude=1.0, masked=0)
@example(vocab=7, p=0.9, seed=1, magnitude=1000.0, masked=2)
def test_top_p_filter_property(impl, vocab, p, seed, magnitude, masked):
    """Unsorted rows, any p, logits beyond exp's range, and -inf entries
    (as left by top-k) against the float64 oracle."""
    z = np.random.default_rng(seed).normal(size=vocab) * magnitude
    z[: min(masked, vocab - 1)] = NEG
    z = z.astype(np.float32)
    keep, gap = np_top_p_keep(z, p)
    assume(gap > 1e-4)  # float32 and float64 sums agree away from p
    out = np.asarray(impl.top_p_filter(jnp.asarray(z), p))
    assert out.shape == z.shape and out.dtype == np.float32
    np.testing.assert_array_equal(out, np.where(keep, z, NEG))


@pytest.mark.requirement(5)
def test_top_p_with_scores_beyond_exp_range(impl):
    """Logits 1000, 999.5, 0: probabilities 0.62, 0.38, 0."""
    z = jnp.array([999.5, 0.0, 1000.0])
    kept = np.isfinite(np.asarray(impl.top_p_filter(z, 0.5))).tolist()
    assert kept == [False, False, True]
    kept = np.isfinite(np.asarray(impl.top_p_filter(z, 0.7))).tolist()
    assert kept == [True, False, True]
