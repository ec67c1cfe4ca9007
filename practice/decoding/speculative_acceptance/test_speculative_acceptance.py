"""Tests for Speculative Decoding Acceptance."""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import example, given, strategies as st

from practice._testing import extreme_uniform

# target p_0..p_3 and draft q_0..q_2 over a vocabulary of 5 tokens (L = 3)
P = np.array(
    [
        [0.1, 0.4, 0.2, 0.2, 0.1],
        [0.3, 0.1, 0.3, 0.2, 0.1],
        [0.05, 0.05, 0.1, 0.4, 0.4],
        [0.2, 0.2, 0.2, 0.2, 0.2],
    ],
    np.float32,
)
Q = np.array(
    [
        [0.4, 0.1, 0.1, 0.2, 0.2],
        [0.2, 0.2, 0.2, 0.2, 0.2],
        [0.3, 0.3, 0.2, 0.1, 0.1],
    ],
    np.float32,
)
N = 40_000


def tv(a, b):
    return 0.5 * np.abs(np.asarray(a) - np.asarray(b)).sum()


def freq(tokens, vocab=5):
    tokens = np.asarray(tokens)
    return np.bincount(tokens, minlength=vocab) / tokens.size


@functools.cache
def simulate(impl, seed=0):
    """N independent rounds: draft tokens drawn from Q, then the acceptance step."""
    draft_key, accept_key = jax.random.split(jax.random.key(seed))
    drafts = jax.random.categorical(
        draft_key, jnp.log(Q), shape=(N, 3)
    ).astype(jnp.int32)
    keys = jax.random.split(accept_key, N)
    run = jax.jit(
        jax.vmap(impl.speculative_accept, in_axes=(0, 0, None, None))
    )
    tokens, num = run(keys, drafts, jnp.asarray(Q), jnp.asarray(P))
    return np.asarray(tokens), np.asarray(num)


def accept(impl):
    """The function under test, compiled once per call site (the tests call it many times)."""
    return jax.jit(impl.speculative_accept, static_argnames="pad_id")


@pytest.mark.requirement(1)
def test_first_emitted_token_follows_target(impl):
    tokens, _ = simulate(impl)
    assert (
        tv(freq(tokens[:, 0]), P[0]) < 0.02
    )  # not Q[0]: tv(P[0], Q[0]) = 0.4


@pytest.mark.requirement(3)
def test_acceptance_counts_follow_min_p_q(impl):
    _, num = simulate(impl)
    beta = np.minimum(P[:3], Q).sum(
        axis=1
    )  # acceptance probability per position
    expected = [
        1 - beta[0],
        beta[0] * (1 - beta[1]),
        beta[0] * beta[1] * (1 - beta[2]),
        beta.prod(),
    ]
    observed = np.bincount(num, minlength=5)[1:] / N
    np.testing.assert_allclose(observed, expected, atol=0.015)


@pytest.mark.requirement(2)
def test_later_tokens_follow_target(impl):
    tokens, num = simulate(impl)
    assert tv(freq(tokens[num >= 2, 1]), P[1]) < 0.03
    assert tv(freq(tokens[num >= 3, 2]), P[2]) < 0.04
    assert tv(freq(tokens[num == 4, 3]), P[3]) < 0.05  # bonus token from p_3


@pytest.mark.requirement(2, 4, 6)
def test_identical_models_accept_everything(impl):
    target = np.concatenate(
        [Q, np.eye(5, dtype=np.float32)[[4]]]
    )  # bonus token is surely 4
    draft = jnp.array([0, 3, 1], jnp.int32)
    run = accept(impl)
    for seed in range(20):
        tokens, num = run(
            jax.random.key(seed), draft, jnp.asarray(Q), jnp.asarray(target)
        )
        np.testing.assert_array_equal(tokens, [0, 3, 1, 4])
        assert int(num) == 4
    assert (
        tokens.dtype == jnp.int32
        and num.dtype == jnp.int32
        and num.shape == ()
    )


@pytest.mark.requirement(4, 5)
def test_certain_rejection_samples_the_residual(impl):
    draft_probs = np.array([[0.5, 0.5, 0, 0, 0]] * 3, np.float32)
    target = np.array(
        [
            [0.5, 0.5, 0, 0, 0],  # position 0: p == q, always accepted
            [0, 0, 0, 1, 0],  # position 1: p(x) = 0, always rejected
            [0.2] * 5,
            [0.2] * 5,
        ],
        np.float32,
    )
    run = accept(impl)
    for seed in range(20):
        tokens, num = run(
            jax.random.key(seed),
            jnp.array([1, 0, 1]),
            jnp.asarray(draft_probs),
            jnp.asarray(target),
        )
        np.testing.assert_array_equal(
            tokens, [1, 3, -1, -1]
        )  # residual max(p - q, 0) = e_3
        assert int(num) == 2
    tokens, _ = run(
        jax.random.key(0),
        jnp.array([1, 0, 1]),
        jnp.asarray(draft_probs),
        jnp.asarray(target),
        pad_id=7,
    )
    np.testing.assert_array_equal(tokens, [1, 3, 7, 7])


@pytest.mark.requirement(5, 6)
def test_single_draft_token(impl):
    q = np.array([[0.0, 1.0, 0.0]], np.float32)
    p = np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]], np.float32)
    tokens, num = accept(impl)(
        jax.random.key(0), jnp.array([1]), jnp.asarray(q), jnp.asarray(p)
    )
    np.testing.assert_array_equal(tokens, [2, -1])
    assert int(num) == 1


@pytest.mark.requirement(6)
def test_jit_and_no_key_reuse(impl):
    draft = jnp.array([0, 3, 1], jnp.int32)
    with jax.debug_key_reuse(True):
        eager = impl.speculative_accept(
            jax.random.key(3), draft, jnp.asarray(Q), jnp.asarray(P)
        )
        jitted = jax.jit(impl.speculative_accept)(
            jax.random.key(3), draft, jnp.asarray(Q), jnp.asarray(P)
        )
    np.testing.assert_array_equal(eager[0], jitted[0])
    assert int(eager[1]) == int(jitted[1])


@pytest.mark.requirement(2, 4, 5, 6)
@given(
    num_draft=st.integers(1, 4),
    vocab=st.integers(2, 5),
    reject_at=st.integers(0, 4),
    seed=st.integers(0, 2**16),
    pad_id=st.sampled_from([-1, 0, 7]),
    equal=st.booleans(),
    draw=st.sampled_from(["key", "lowest", "highest"]),
)
@example(1, 2, 0, 0, 0, True, "key")
@example(4, 5, 4, 0, 7, True, "key")
@example(3, 3, 2, 1, -1, False, "key")
@example(3, 4, 3, 2, 0, False, "key")
@example(1, 2, 0, 0, -1, True, "lowest")
@example(4, 5, 4, 0, 7, True, "highest")
def test_certain_outcomes_property(
    impl, num_draft, vocab, reject_at, seed, pad_id, equal, draw
):
    """Tokens 0 .. j-1 have p(x) >= q(x) (equal, or more) and are always
    accepted; token j has p(x) = 0 and is always rejected, and its residual
    is one-hot at r (or, j = L, p_L is one-hot at r): the output is certain,
    whatever the key, also a key whose uniform draws are all exactly 0.0 or
    all the largest float32 below 1 (jax.random.uniform stands in for it)."""
    j = min(reject_at, num_draft)
    rng = np.random.default_rng(seed)
    q = rng.uniform(0.1, 1, size=(num_draft, vocab))
    q /= q.sum(axis=1, keepdims=True)
    x = rng.integers(0, vocab, size=num_draft)
    p = rng.uniform(0.1, 1, size=(num_draft + 1, vocab))
    p /= p.sum(axis=1, keepdims=True)
    for i in range(j):  # p_i(x_i) >= q_i(x_i)
        p[i] = q[i] if equal else 0.5 * q[i] + 0.5 * np.eye(vocab)[x[i]]
    r = int(rng.integers(0, vocab))
    if j < num_draft:  # p_j(x_j) = 0; residual max(p_j - q_j, 0) is e_r
        r = (x[j] + 1 + r % (vocab - 1)) % vocab
    p[j] = np.eye(vocab)[r]
    # without jit: a solution jitted at module level must not cache a trace of
    # the stand-in for later tests
    with pytest.MonkeyPatch.context() as patch, jax.disable_jit(draw != "key"):
        if draw != "key":
            patch.setattr(jax.random, "uniform", extreme_uniform(draw))
        tokens, num = impl.speculative_accept(
            jax.random.key(seed),
            jnp.asarray(x, jnp.int32),
            jnp.asarray(q, jnp.float32),
            jnp.asarray(p, jnp.float32),
            pad_id=pad_id,
        )
    expected = list(x[:j]) + [r] + [pad_id] * (num_draft - j)
    assert tokens.shape == (num_draft + 1,) and tokens.dtype == jnp.int32
    assert num.shape == () and num.dtype == jnp.int32
    np.testing.assert_array_equal(tokens, expected)
    assert int(num) == j + 1
