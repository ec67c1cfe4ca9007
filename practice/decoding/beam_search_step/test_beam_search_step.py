"""Tests for Beam Search Step."""

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import example, given, strategies as st

NEG = -np.inf


def np_step(scores, log_probs, finished, eos_id):
    """Brute-force reference: list every candidate, stable sort on the score."""
    batch, beams, vocab = log_probs.shape
    out = [
        np.zeros((batch, beams)),
        np.zeros((batch, beams), int),
        np.zeros((batch, beams), int),
        np.zeros((batch, beams), bool),
    ]
    for b in range(batch):
        cand = []
        for k in range(beams):
            for v in range(vocab):
                if finished[b, k]:
                    s = scores[b, k] if v == eos_id else NEG
                else:  # the float32 sum, as the solution computes it
                    s = np.float32(scores[b, k]) + np.float32(
                        log_probs[b, k, v]
                    )
                cand.append((float(s), k, v))
        # Python's sort is stable; -0.0 ranks below 0.0, as in lax.top_k
        order = sorted(
            range(len(cand)),
            key=lambda i: (-cand[i][0], bool(np.signbit(cand[i][0]))),
        )
        for j, i in enumerate(order[:beams]):
            s, k, v = cand[i]
            out[0][b, j], out[1][b, j], out[2][b, j] = s, k, v
            out[3][b, j] = finished[b, k] or v == eos_id
    return out


def run(impl, scores, log_probs, finished, eos_id):
    return impl.beam_search_step(
        jnp.asarray(scores, jnp.float32),
        jnp.asarray(log_probs, jnp.float32),
        jnp.asarray(finished),
        eos_id,
    )


@pytest.mark.requirement(1, 2)
def test_hand_example(impl):
    scores = [[-1.0, -2.0]]
    log_probs = [[[-0.5, -1.5, -3.0], [-0.25, -2.0, -4.0]]]
    # candidates: beam 0 -> -1.5, -2.5, -4.0 ; beam 1 -> -2.25, -4.0, -6.0
    new_scores, parents, tokens, fin = run(
        impl, scores, log_probs, [[False, False]], eos_id=2
    )
    np.testing.assert_array_equal(new_scores, [[-1.5, -2.25]])
    np.testing.assert_array_equal(parents, [[0, 1]])
    np.testing.assert_array_equal(tokens, [[0, 0]])
    np.testing.assert_array_equal(fin, [[False, False]])
    assert (
        parents.dtype == jnp.int32
        and tokens.dtype == jnp.int32
        and fin.dtype == jnp.bool_
    )


@pytest.mark.requirement(3)
def test_ties_follow_flat_index(impl):
    # candidates -1 at (0,0), (0,1), (1,0), (1,1): the two lowest flat indices win
    out = run(
        impl,
        [[0.0, 0.0]],
        [[[-1.0, -1.0, -2.0], [-1.0, -1.0, -2.0]]],
        [[False, False]],
        5,
    )
    np.testing.assert_array_equal(out[1], [[0, 0]])
    np.testing.assert_array_equal(out[2], [[0, 1]])
    # -0.0 + -0.0 = -0.0 at flat index 0 ranks below -0.0 + 0.0 = 0.0
    scores, parents, _, _ = run(
        impl, [[-0.0, -0.0]], [[[-0.0], [0.0]]], [[False, False]], 5
    )
    np.testing.assert_array_equal(parents, [[1, 0]])
    np.testing.assert_array_equal(np.signbit(scores), [[False, True]])


@pytest.mark.requirement(4)
def test_finished_beams_extend_only_with_eos(impl):
    scores = [[-0.5, -1.0]]
    log_probs = [
        [[0.0, 0.0, -9.0], [-0.1, -3.0, -0.2]]
    ]  # beam 0's log-probs must be ignored
    new_scores, parents, tokens, fin = run(
        impl, scores, log_probs, [[True, False]], eos_id=2
    )
    np.testing.assert_allclose(new_scores, [[-0.5, -1.1]])
    np.testing.assert_array_equal(parents, [[0, 1]])
    np.testing.assert_array_equal(tokens, [[2, 0]])
    np.testing.assert_array_equal(fin, [[True, False]])


@pytest.mark.requirement(5)
def test_new_eos_marks_beam_finished(impl):
    out = run(
        impl,
        [[0.0, -5.0]],
        [[[-2.0, -0.1, -3.0], [-1.0, -1.0, -1.0]]],
        [[False, False]],
        1,
    )
    np.testing.assert_array_equal(out[2], [[1, 0]])
    np.testing.assert_array_equal(out[3], [[True, False]])


@pytest.mark.requirement(6)
def test_first_step_with_one_live_beam_gives_distinct_beams(impl):
    scores = np.array([[0.0, NEG, NEG]])
    log_probs = np.log(np.array([[[0.1, 0.4, 0.3, 0.2]] * 3]))
    new_scores, parents, tokens, _ = run(
        impl, scores, log_probs, np.zeros((1, 3), bool), 0
    )
    np.testing.assert_array_equal(parents, [[0, 0, 0]])
    np.testing.assert_array_equal(tokens, [[1, 2, 3]])
    np.testing.assert_allclose(
        new_scores, np.log([[0.4, 0.3, 0.2]]), rtol=1e-6
    )


@pytest.mark.requirement(2, 3, 4, 5)
def test_random_batches_match_brute_force(impl):
    rng = np.random.default_rng(0)
    for trial in range(6):
        b, k, v = 3, 4, 6
        scores = rng.normal(size=(b, k)).astype(np.float32)
        log_probs = rng.normal(size=(b, k, v)).astype(np.float32)
        if trial % 2:  # coarse values: many exact ties
            # (rounding also makes -0.0, which ranks below 0.0)
            scores, log_probs = np.round(scores), np.round(log_probs * 2) / 2
        finished = rng.random((b, k)) < 0.3
        scores = np.where(finished, scores + 0.0, scores)  # no finished -0.0
        eos = int(rng.integers(v))
        got = run(impl, scores, log_probs, finished, eos)
        want = np_step(scores, log_probs, finished, eos)
        np.testing.assert_allclose(
            got[0], want[0], rtol=1e-6, err_msg=f"trial {trial}"
        )
        for g, w in zip(got[1:], want[1:]):
            np.testing.assert_array_equal(g, w, err_msg=f"trial {trial}")


@pytest.mark.requirement(7)
def test_gather_beams_on_a_pytree(impl):
    cache = {
        "k": jnp.arange(2 * 3 * 4 * 2).reshape(2, 3, 4, 2),
        "len": jnp.array([[5, 6, 7], [8, 9, 10]]),
    }
    parents = jnp.array([[2, 2, 0], [1, 0, 1]], jnp.int32)
    out = impl.gather_beams(cache, parents)
    np.testing.assert_array_equal(out["len"], [[7, 7, 5], [9, 8, 9]])
    k = np.asarray(cache["k"])
    np.testing.assert_array_equal(
        out["k"], np.stack([k[0][[2, 2, 0]], k[1][[1, 0, 1]]])
    )


class Carry(NamedTuple):
    """A per-beam state kept as a named tuple."""

    hidden: jax.Array
    step: jax.Array


@pytest.mark.requirement(7)
@pytest.mark.parametrize(
    "container", ["dict", "list", "tuple", "namedtuple", "nested", "leaf"]
)
def test_gather_beams_on_every_pytree_container(impl, container):
    """Every container a pytree allows, not only dicts; a bare array too."""
    a = jnp.arange(2 * 3 * 2).reshape(2, 3, 2)
    c = jnp.array([[5, 6, 7], [8, 9, 10]])
    tree = {
        "dict": lambda: {"a": a, "c": c},
        "list": lambda: [a, c],
        "tuple": lambda: (a, c),
        "namedtuple": lambda: Carry(a, c),
        "nested": lambda: {"x": [(a,), {"y": c}]},
        "leaf": lambda: a,
    }[container]()
    parents = jnp.array([[2, 2, 0], [1, 0, 1]], jnp.int32)
    out = impl.gather_beams(tree, parents)
    assert jax.tree.structure(out) == jax.tree.structure(tree)
    for got, leaf in zip(jax.tree.leaves(out), jax.tree.leaves(tree)):
        leaf = np.asarray(leaf)
        want = np.stack([leaf[0][[2, 2, 0]], leaf[1][[1, 0, 1]]])
        np.testing.assert_array_equal(got, want)


@pytest.mark.requirement(8)
def test_under_jit(impl):
    rng = np.random.default_rng(1)
    scores = rng.normal(size=(2, 3)).astype(np.float32)
    log_probs = rng.normal(size=(2, 3, 5)).astype(np.float32)
    finished = np.array([[True, False, False], [False, False, True]])
    step = jax.jit(impl.beam_search_step, static_argnums=3)
    got = step(
        jnp.asarray(scores), jnp.asarray(log_probs), jnp.asarray(finished), 4
    )
    want = np_step(scores, log_probs, finished, 4)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-6)
    np.testing.assert_array_equal(got[1], want[1])
    gathered = jax.jit(impl.gather_beams)(jnp.asarray(scores), got[1])
    np.testing.assert_array_equal(
        gathered, np.take_along_axis(scores, np.asarray(want[1]), 1)
    )


@pytest.mark.requirement(1, 2, 3, 4, 5, 6)
@given(
    shape=st.sampled_from([(1, 1, 3), (2, 3, 4), (1, 4, 1), (3, 2, 5)]),
    seed=st.integers(0, 2**16),
    coarse=st.booleans(),
    ignored=st.sampled_from([0.0, np.nan, np.inf, -np.inf]),
    unused=st.booleans(),
)
@example(shape=(1, 1, 3), seed=0, coarse=False, ignored=np.nan, unused=False)
def test_matches_brute_force_property(
    impl, shape, seed, coarse, ignored, unused
):
    """Any shape (K = 1, V = 1, odd sizes), exact ties, unused beams at -inf,
    and inf or nan in the ignored log-probs of finished beams."""
    b, k, v = shape
    rng = np.random.default_rng(seed)
    scores = rng.normal(size=(b, k)).astype(np.float32)
    log_probs = rng.normal(size=(b, k, v)).astype(np.float32)
    if coarse:  # many exact ties
        # (rounding also makes -0.0, which ranks below 0.0)
        scores, log_probs = np.round(scores), np.round(log_probs * 2) / 2
    finished = rng.random((b, k)) < 0.4
    if unused:  # beams 1.. unused: -inf, not finished
        scores[:, 1:], finished[:, 1:] = -np.inf, False
    log_probs[finished] = ignored  # a finished beam's log-probs are ignored
    # no finished beam at -0.0: the statement does not fix the sign of the
    # zero it keeps (its score plus a log-probability of 0 is 0.0)
    scores = np.where(finished, scores + 0.0, scores)
    eos = int(rng.integers(v))
    got = run(impl, scores, log_probs, finished, eos)
    want = np_step(scores, log_probs, finished, eos)
    for g, dtype in zip(got, [jnp.float32, jnp.int32, jnp.int32, jnp.bool_]):
        assert g.shape == (b, k) and g.dtype == dtype
    np.testing.assert_allclose(got[0], want[0], rtol=1e-6)
    for g, w in zip(got[1:], want[1:]):
        np.testing.assert_array_equal(g, w)
