"""Tests for A Resumable Data Iterator (NumPy only: no device work)."""

import json

import numpy as np
import pytest
from hypothesis import example, given, strategies as st


def oracle_stream(n, seed, length, epoch=0, offset=0):
    """The first `length` indices of the stream from (epoch, offset):
    whole epochs' permutations, concatenated, then sliced."""
    epochs = epoch + (offset + length) // n + 1
    orders = [
        np.random.default_rng([seed, e]).permutation(n)
        for e in range(epoch, epochs)
    ]
    return np.concatenate(orders)[offset : offset + length]


def oracle_position(n, seed, taken, epoch=0, offset=0):
    """The state after `taken` more indices, counted by hand."""
    position = epoch * n + offset + taken
    return {"seed": seed, "epoch": position // n, "offset": position % n}


sizes = st.integers(1, 12)
batch_sizes = st.integers(1, 30)  # often larger than n: a batch spans epochs
seeds = st.integers(0, 2**32)


@pytest.mark.requirement(1)
@given(sizes, batch_sizes, seeds, st.integers(0, 8))
@example(1, 1, 0, 3)  # one example per epoch
@example(5, 5, 0, 3)  # a batch is an epoch
@example(5, 3, 7, 4)  # batches end inside the next epoch
@example(4, 13, 2, 2)  # one batch spans four epochs
def test_batches_follow_the_epoch_orders(impl, n, batch_size, seed, count):
    it = impl.ShuffledBatches(n, batch_size, seed)
    assert iter(it) is it
    batches = [next(it) for _ in range(count)]
    for batch in batches:
        assert batch.shape == (batch_size,) and batch.dtype == np.int64
    got = np.concatenate([np.zeros(0, np.int64), *batches])
    np.testing.assert_array_equal(
        got, oracle_stream(n, seed, count * batch_size)
    )


@pytest.mark.requirement(1)
def test_hand_computed(impl):
    first = np.random.default_rng([3, 0]).permutation(4)
    second = np.random.default_rng([3, 1]).permutation(4)
    it = impl.ShuffledBatches(4, 3, seed=3)
    np.testing.assert_array_equal(next(it), first[:3])
    np.testing.assert_array_equal(next(it), [first[3], *second[:2]])
    np.testing.assert_array_equal(
        next(it),
        [
            second[2],
            second[3],
            np.random.default_rng([3, 2]).permutation(4)[0],
        ],
    )


@pytest.mark.requirement(1, 2)
def test_defaults_start_at_the_beginning_of_seed_0(impl):
    it = impl.ShuffledBatches(5, 7)
    assert it.state() == {"seed": 0, "epoch": 0, "offset": 0}
    np.testing.assert_array_equal(next(it), oracle_stream(5, 0, 7))


@pytest.mark.requirement(1)
@given(sizes, seeds, st.integers(0, 5), st.integers(0, 11))
@example(3, 0, 2, 2)  # the last example of an epoch
@example(1, 0, 4, 0)
def test_starts_where_it_is_told(impl, n, seed, epoch, offset):
    offset %= n
    it = impl.ShuffledBatches(n, 2 * n + 1, seed, epoch, offset)
    expected = oracle_stream(n, seed, 2 * n + 1, epoch, offset)
    np.testing.assert_array_equal(next(it), expected)


@pytest.mark.requirement(2)
@given(sizes, batch_sizes, seeds, st.integers(0, 8))
@example(1, 1, 0, 0)
@example(5, 5, 1, 2)  # exactly at an epoch boundary: offset 0
@example(5, 4, 1, 4)  # 16 examples: epoch 3, offset 1
def test_state_is_the_position_in_ints(impl, n, batch_size, seed, count):
    it = impl.ShuffledBatches(n, batch_size, seed)
    for _ in range(count):
        next(it)
    state = it.state()
    assert state == oracle_position(n, seed, count * batch_size)
    assert all(type(v) is int for v in state.values()), state
    assert json.loads(json.dumps(state)) == state


@pytest.mark.requirement(2)
def test_state_is_a_new_dict(impl):
    it = impl.ShuffledBatches(5, 2, seed=1)
    saved = it.state()
    kept = dict(saved)
    next(it)
    next(it)
    next(it)
    assert saved == kept
    assert it.state() != saved and it.state() is not it.state()


@pytest.mark.requirement(3)
@given(sizes, batch_sizes, seeds, st.integers(0, 6), st.integers(1, 6))
@example(5, 5, 0, 1, 3)  # saved at an epoch boundary
@example(5, 3, 0, 3, 3)  # saved in the middle of epoch 1
@example(1, 2, 9, 2, 2)
def test_restore_continues_the_stream(impl, n, batch_size, seed, k, m):
    it = impl.ShuffledBatches(n, batch_size, seed)
    for _ in range(k):
        next(it)
    saved = json.loads(json.dumps(it.state()))  # as a checkpoint stores it
    resumed = impl.ShuffledBatches.restore(saved, n, batch_size)
    for _ in range(m):
        np.testing.assert_array_equal(next(resumed), next(it))
    assert resumed.state() == it.state()


@pytest.mark.requirement(3, 6)
def test_restore_accepts_numpy_integers(impl):
    it = impl.ShuffledBatches(6, 4, seed=5)
    next(it)
    next(it)
    saved = {k: np.int64(v) for k, v in it.state().items()}
    resumed = impl.ShuffledBatches.restore(saved, 6, 4)
    np.testing.assert_array_equal(next(resumed), next(it))
    assert all(type(v) is int for v in resumed.state().values())


@pytest.mark.requirement(4)
@given(sizes, batch_sizes, batch_sizes, seeds, st.integers(0, 6))
@example(5, 2, 3, 0, 3)
@example(4, 7, 1, 1, 2)
def test_restore_with_another_batch_size(impl, n, before, after, seed, k):
    it = impl.ShuffledBatches(n, before, seed)
    for _ in range(k):
        next(it)
    resumed = impl.ShuffledBatches.restore(it.state(), n, after)
    got = np.concatenate([next(resumed) for _ in range(3)])
    expected = oracle_stream(n, seed, k * before + 3 * after)[k * before :]
    np.testing.assert_array_equal(got, expected)


@pytest.mark.requirement(5)
@pytest.mark.parametrize(
    "args",
    [
        (0, 1, 0, 0, 0),
        (-1, 1, 0, 0, 0),
        (3, 0, 0, 0, 0),
        (3, -2, 0, 0, 0),
        (3, 1, -1, 0, 0),
        (3, 1, 0, -1, 0),
        (3, 1, 0, 0, 3),
        (3, 1, 0, 0, 4),
        (3, 1, 0, 0, -1),
        (1, 1, 0, 0, 1),
    ],
)
def test_constructor_rejects(impl, args):
    with pytest.raises(ValueError):
        impl.ShuffledBatches(*args)


@pytest.mark.requirement(5)
def test_constructor_accepts_the_edges(impl):
    for args in [(1, 1, 0, 0, 0), (3, 1, 0, 0, 2), (3, 7, 0, 9, 0)]:
        it = impl.ShuffledBatches(*args)
        assert it.state() == dict(zip(("seed", "epoch", "offset"), args[2:]))


STATE = {"seed": 1, "epoch": 2, "offset": 3}


@pytest.mark.requirement(6)
@pytest.mark.parametrize(
    "state",
    [
        {"seed": 1, "epoch": 2},
        STATE | {"step": 4},
        {"Seed": 1, "epoch": 2, "offset": 3},
        {"seed": 1, "epoch": 2, "OFFSET": 3},
        {},
    ],
)
def test_restore_rejects_other_keys(impl, state):
    with pytest.raises(ValueError):
        impl.ShuffledBatches.restore(state, 5, 2)


@pytest.mark.requirement(6)
@pytest.mark.parametrize("key", ["seed", "epoch", "offset"])
@pytest.mark.parametrize("value", [3.0, "3", True, None])
def test_restore_rejects_non_integers(impl, key, value):
    with pytest.raises(TypeError):
        impl.ShuffledBatches.restore(STATE | {key: value}, 5, 2)
