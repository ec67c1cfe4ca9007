"""Tests for Greedy Decode Loop with Scan."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import example, given, strategies as st

from practice._testing import all_primitives, compiled_lines


def cycle_step(state, tokens):
    """Bigram toy model: after token t the best next token is (t + 1) % 8."""
    table = jnp.eye(8)[(jnp.arange(8) + 1) % 8] * 2.0
    return table[tokens], state


def make_rnn(seed, vocab=7, hidden=5, rounded=False, mixed=False):
    """mixed: each row's state also sees the mean embedding of the batch, so
    a row depends on the tokens fed to the others (finished ones included)."""
    rng = np.random.default_rng(seed)
    emb = rng.normal(size=(vocab, hidden)).astype(np.float32)
    rec = rng.normal(size=(hidden, hidden)).astype(np.float32) * 0.5
    out = rng.normal(size=(hidden, vocab)).astype(np.float32) * 2.0
    pos = rng.normal(size=(vocab,)).astype(np.float32)

    def step(state, tokens):  # works on NumPy and on JAX arrays
        xp = jnp if isinstance(state["h"], jax.Array) else np
        fed = xp.asarray(emb)[tokens]
        if mixed:
            fed = fed + xp.mean(fed, axis=0)
        h = xp.tanh(state["h"] @ xp.asarray(rec) + fed)
        logits = h @ xp.asarray(out) + 0.3 * state["t"] * xp.asarray(pos)
        if rounded:  # integer logits: ties between tokens are frequent
            logits = xp.round(logits / 2)
        return logits, {"h": h, "t": state["t"] + 1}

    return step, hidden


def np_greedy(step, state, first, num_steps, eos_id, pad_id):
    """Plain Python loop reference."""
    fed = np.asarray(first)
    done = np.zeros(fed.shape[0], bool)
    tokens, lengths = [], np.zeros(fed.shape[0], int)
    for _ in range(num_steps):
        logits, state = step(state, fed)
        emitted = np.where(
            done, pad_id, np.argmax(np.asarray(logits), axis=-1)
        )
        lengths += ~done
        done = done | (emitted == eos_id)
        tokens.append(emitted)
        fed = emitted
    return np.stack(tokens, axis=1), lengths


@pytest.mark.requirement(1, 4)
def test_hand_example_with_eos_and_padding(impl):
    tokens, lengths = impl.greedy_decode(
        cycle_step, (), jnp.array([0, 2, 4]), 6, eos_id=3, pad_id=0
    )
    np.testing.assert_array_equal(
        tokens, [[1, 2, 3, 0, 0, 0], [3, 0, 0, 0, 0, 0], [5, 6, 7, 0, 1, 2]]
    )
    np.testing.assert_array_equal(lengths, [3, 1, 6])
    assert tokens.dtype == jnp.int32 and lengths.dtype == jnp.int32


@pytest.mark.requirement(2)
def test_argmax_ties_take_lowest_index(impl):
    def step(state, tokens):
        row = jnp.array([0.0, 5.0, 5.0, 1.0])
        return jnp.broadcast_to(row, (tokens.shape[0], 4)), state

    tokens, lengths = impl.greedy_decode(
        step, (), jnp.array([0, 3]), 3, eos_id=2, pad_id=0
    )
    np.testing.assert_array_equal(tokens, [[1, 1, 1], [1, 1, 1]])
    np.testing.assert_array_equal(lengths, [3, 3])


@pytest.mark.requirement(3)
def test_stateful_model_matches_python_loop(impl):
    step, hidden = make_rnn(0)
    first = np.array([0, 3, 5, 6])
    state0 = {"h": np.zeros((4, hidden), np.float32), "t": np.float32(0)}
    free_run, _ = np_greedy(step, state0, first, 8, eos_id=-1, pad_id=0)
    eos = int(free_run[0, 2])  # a token that row 0 emits at step 3
    expected, expected_len = np_greedy(
        step, state0, first, 8, eos_id=eos, pad_id=0
    )
    assert expected_len[0] <= 3
    jstate = jax.tree.map(jnp.asarray, state0)
    tokens, lengths = impl.greedy_decode(
        step, jstate, jnp.asarray(first), 8, eos_id=eos, pad_id=0
    )
    np.testing.assert_array_equal(tokens, expected)
    np.testing.assert_array_equal(lengths, expected_len)


@pytest.mark.requirement(3, 4)
def test_several_models_and_pad_ids(impl):
    for seed in range(1, 4):
        step, hidden = make_rnn(seed)
        first = np.arange(7)
        state0 = {"h": np.zeros((7, hidden), np.float32), "t": np.float32(0)}
        for eos, pad in [(1, 0), (4, 6), (2, 2)]:
            expected, expected_len = np_greedy(
                step, state0, first, 5, eos, pad
            )
            tokens, lengths = impl.greedy_decode(
                step,
                jax.tree.map(jnp.asarray, state0),
                jnp.asarray(first),
                5,
                eos,
                pad,
            )
            np.testing.assert_array_equal(
                tokens, expected, err_msg=f"seed={seed} eos={eos}"
            )
            np.testing.assert_array_equal(lengths, expected_len)


@pytest.mark.requirement(5)
def test_loop_is_a_scan_traced_once(impl):
    calls = []

    def step(state, tokens):
        calls.append(1)  # runs only while tracing
        return cycle_step(state, tokens)

    jaxpr = jax.make_jaxpr(
        lambda f: impl.greedy_decode(step, (), f, 12, 3, 0)
    )(jnp.array([0, 1]))
    names = {eqn.primitive.name for eqn in jaxpr.jaxpr.eqns}
    assert "scan" in names, names
    assert len(calls) <= 2, (
        f"step_fn was traced {len(calls)} times for 12 steps: use lax.scan"
    )


@pytest.mark.requirement(6)
def test_under_jit(impl):
    f = jax.jit(impl.greedy_decode, static_argnums=(0, 3, 4, 5))
    tokens, lengths = f(cycle_step, (), jnp.array([6, 1]), 4, 0, 7)
    np.testing.assert_array_equal(tokens, [[7, 0, 7, 7], [2, 3, 4, 5]])
    np.testing.assert_array_equal(lengths, [2, 4])


@pytest.mark.requirement(2, 3, 4)
@given(
    seed=st.integers(0, 2**16),
    batch=st.sampled_from([1, 3]),
    num_steps=st.sampled_from([1, 5]),
    eos_id=st.integers(-1, 6),
    pad_id=st.integers(0, 6),
    rounded=st.booleans(),
    mixed=st.booleans(),
)
@example(
    seed=0, batch=1, num_steps=1, eos_id=2, pad_id=2, rounded=True, mixed=False
)
@example(
    seed=2, batch=3, num_steps=5, eos_id=0, pad_id=6, rounded=False, mixed=True
)
def test_matches_python_loop_oracle(
    impl, seed, batch, num_steps, eos_id, pad_id, rounded, mixed
):
    """Random RNNs (integer logits: many ties), batch 1 or 3, 1 or 5 steps,
    any eos and pad ids, rows independent or not, against the plain Python
    loop."""
    step, hidden = make_rnn(seed, rounded=rounded, mixed=mixed)
    first = np.random.default_rng(seed).integers(0, 7, size=batch)
    state0 = {"h": np.zeros((batch, hidden), np.float32), "t": np.float32(0)}
    expected, expected_len = np_greedy(
        step, state0, first, num_steps, eos_id, pad_id
    )
    tokens, lengths = impl.greedy_decode(
        step,
        jax.tree.map(jnp.asarray, state0),
        jnp.asarray(first, jnp.int32),
        num_steps,
        eos_id,
        pad_id,
    )
    assert tokens.shape == (batch, num_steps) and lengths.shape == (batch,)
    assert tokens.dtype == jnp.int32 and lengths.dtype == jnp.int32
    np.testing.assert_array_equal(tokens, expected)
    np.testing.assert_array_equal(lengths, expected_len)


@pytest.mark.requirement(5)
def test_program_does_not_grow_with_steps(impl):
    """The jaxpr for 12 steps has as many equations as for 2."""

    def size(num_steps):
        fn = lambda f: impl.greedy_decode(cycle_step, (), f, num_steps, 3, 0)
        jaxpr = jax.make_jaxpr(fn)(jnp.array([0, 1]))
        return len(all_primitives(jaxpr.jaxpr))

    assert size(2) == size(12)


@pytest.mark.requirement(5)
def test_compiled_program_does_not_grow_with_steps(impl):
    """Checked on what XLA compiles, not only on the jaxpr (unroll=True)."""
    lines = [
        compiled_lines(
            lambda f, n=n: impl.greedy_decode(cycle_step, (), f, n, 3, 0),
            jnp.array([0, 1]),
        )
        for n in (2, 12)
    ]
    assert lines[0] == lines[1], f"compiled program grows: {lines}"
