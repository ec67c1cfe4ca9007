"""Tests for AdamW from Scratch."""

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest
from hypothesis import example, given, strategies as st
from hypothesis.extra import numpy as hnp

from practice._testing import (
    CONTAINERS,
    assert_trees_close as shared_assert_trees_close,
    grads_at,
    normal,
    steps_against_oracle,
)


def make_params():
    w, out_w, out_s = normal(0, (4, 3), (3, 2), ())
    return {"block": {"w": w, "b": jnp.full((3,), 0.1)}, "out": [out_w, out_s]}


assert_trees_close = partial(shared_assert_trees_close, rtol=1e-5, atol=1e-7)


@pytest.mark.requirement(1)
def test_init_state(impl):
    init, _ = impl.adamw(1e-3)
    params = make_params()
    state = init(params)
    assert set(state) == {"count", "mu", "nu"}
    assert (
        state["count"].dtype == jnp.int32
        and state["count"].shape == ()
        and int(state["count"]) == 0
    )
    for name in ("mu", "nu"):
        assert jax.tree.structure(state[name]) == jax.tree.structure(params)
        for leaf, p in zip(
            jax.tree.leaves(state[name]), jax.tree.leaves(params)
        ):
            np.testing.assert_array_equal(leaf, np.zeros(p.shape))


@pytest.mark.requirement(2)
def test_first_step_by_hand(impl):
    # After one step mu_hat = g and nu_hat = g**2, so the Adam part is g / (|g| + eps).
    lr, wd, eps = 0.01, 0.1, 1e-8
    init, update = impl.adamw(lr, weight_decay=wd, eps=eps)
    p = {"w": jnp.array([1.0, -2.0, 3.0])}
    g = {"w": jnp.array([0.5, 0.001, -4.0])}
    updates, state = update(g, init(p), p)
    gn, pn = np.array([0.5, 0.001, -4.0]), np.array([1.0, -2.0, 3.0])
    np.testing.assert_allclose(
        updates["w"], -lr * (gn / (np.abs(gn) + eps) + wd * pn), rtol=1e-5
    )
    assert int(state["count"]) == 1
    np.testing.assert_allclose(state["mu"]["w"], 0.1 * gn, rtol=1e-6)
    np.testing.assert_allclose(state["nu"]["w"], 0.001 * gn**2, rtol=1e-5)


@pytest.mark.requirement(3)
def test_weight_decay_is_decoupled(impl):
    # Zero gradients leave the moments at zero: the whole update is the decay of the parameters.
    init, update = impl.adamw(0.1, weight_decay=0.5)
    params = make_params()
    zeros = jax.tree.map(jnp.zeros_like, params)
    updates, _ = update(zeros, init(params), params)
    assert_trees_close(updates, jax.tree.map(lambda p: -0.1 * 0.5 * p, params))


@pytest.mark.requirement(4)
@pytest.mark.parametrize(
    "hyper",
    [
        dict(learning_rate=1e-2, weight_decay=0.1),
        dict(learning_rate=3e-3, b1=0.8, b2=0.95, eps=1e-6, weight_decay=0.0),
    ],
)
def test_matches_optax_adamw(impl, hyper):
    init, update = impl.adamw(**hyper)
    oracle = optax.adamw(**hyper)
    params = ref_params = make_params()
    state, ref_state = init(params), oracle.init(params)
    for step in range(6):
        grads = grads_at(step, params)
        updates, state = update(grads, state, params)
        ref_updates, ref_state = oracle.update(grads, ref_state, ref_params)
        assert_trees_close(updates, ref_updates)
        params = jax.tree.map(jnp.add, params, updates)
        ref_params = optax.apply_updates(ref_params, ref_updates)
    assert_trees_close(params, ref_params)
    assert int(state["count"]) == 6


@pytest.mark.requirement(5)
def test_under_jit(impl):
    init, update = impl.adamw(1e-2, weight_decay=0.05)
    oracle = optax.adamw(1e-2, weight_decay=0.05)
    step = jax.jit(update)
    params = make_params()
    state, ref_state = init(params), oracle.init(params)
    for i in range(3):
        grads = grads_at(i, params)
        updates, state = step(grads, state, params)
        ref_updates, ref_state = oracle.update(grads, ref_state, params)
        assert_trees_close(updates, ref_updates)
    assert state["count"].dtype == jnp.int32 and int(state["count"]) == 3


@pytest.mark.requirement(6)
def test_update_is_pure(impl):
    init, update = impl.adamw(1e-2)
    params = make_params()
    state = init(params)
    grads = grads_at(0, params)
    _, state = update(grads, state, params)
    first = update(grads, state, params)
    second = update(grads, state, params)
    assert_trees_close(first, second, rtol=0, atol=0)


SHAPES = [(1,), (3, 1), (), (2, 5)]  # size-1 axes, a scalar, odd sizes


@st.composite
def gradient_steps(draw):
    """Three steps of gradients for the leaves SHAPES, at one magnitude."""
    scale = draw(st.sampled_from([1e-6, 1.0, 1e3]))
    unit = st.floats(-1, 1, width=32)
    return [
        [
            scale * draw(hnp.arrays(np.float32, s, elements=unit))
            for s in SHAPES
        ]
        for _ in range(3)
    ]


@pytest.mark.requirement(4)
@given(
    steps=gradient_steps(),
    b1=st.sampled_from([0.0, 0.9]),
    b2=st.sampled_from([0.95, 0.999]),
    eps=st.sampled_from([1e-8, 1e-3]),
    weight_decay=st.sampled_from([0.0, 1e-2, 0.5]),
)
def test_property_matches_optax_adamw(impl, steps, b1, b2, eps, weight_decay):
    hyper = dict(b1=b1, b2=b2, eps=eps, weight_decay=weight_decay)
    init, update = impl.adamw(1e-2, **hyper)
    oracle = optax.adamw(1e-2, **hyper)
    start = [jnp.full(s, 0.5) for s in SHAPES]
    params, ref_params = steps_against_oracle(
        init, update, oracle, start, steps, rtol=1e-4, atol=1e-8
    )
    assert_trees_close(params, ref_params)


@pytest.mark.requirement(4)
@given(
    steps=st.lists(
        st.lists(st.floats(-1, 1, width=32), min_size=4, max_size=4),
        min_size=3,
        max_size=3,
    ),
    scale=st.floats(1e-6, 1e3),
    learning_rate=st.floats(1e-5, 1.0),
    b1=st.floats(0, 0.99),
    b2=st.floats(0, 0.9999),
    eps=st.floats(1e-8, 1.0),
    weight_decay=st.floats(0, 1.0),
    container=st.sampled_from(sorted(CONTAINERS)),
)
@example(
    steps=[[1.0, -1.0, 0.5, 0.0]] * 3,
    scale=1e-6,
    learning_rate=1e-3,
    b1=0.0,
    b2=0.0,
    eps=1e-8,
    weight_decay=0.0,
    container="tuple",
)
@example(
    steps=[[1.0, -1.0, 0.5, 0.25]] * 3,
    scale=1e3,
    learning_rate=1.0,
    b1=0.99,
    b2=0.9999,
    eps=1.0,
    weight_decay=1.0,
    container="named tuple",
)
@example(
    steps=[[0.0, 0.0, 0.0, 0.0]] * 3,
    scale=1.0,
    learning_rate=0.1,
    b1=0.9,
    b2=0.999,
    eps=1e-8,
    weight_decay=0.5,
    container="nested",
)
def test_whole_range_matches_optax_adamw(
    impl, steps, scale, learning_rate, b1, b2, eps, weight_decay, container
):
    """Every hyperparameter over its range (b1 and b2 from 0, weight_decay from 0, eps up to 1),
    gradients of magnitude 1e-6 to 1e3 and every pytree container: optax.adamw's updates in the
    parameters' structure, and the caller's state left as it was."""
    build = CONTAINERS[container]
    hyper = dict(b1=b1, b2=b2, eps=eps, weight_decay=weight_decay)
    init, update = impl.adamw(learning_rate, **hyper)
    oracle = optax.adamw(learning_rate, **hyper)
    params = build(*[jnp.full(s, 0.5) for s in SHAPES])
    state, ref_state = init(params), oracle.init(params)
    for values in steps:
        grads = build(
            *[
                jnp.full(s, scale * v, jnp.float32)
                for s, v in zip(SHAPES, values)
            ]
        )
        before = dict(state), jax.tree.leaves(state)
        updates, new_state = update(grads, state, params)
        assert dict(state) == before[0] and all(
            a is b for a, b in zip(jax.tree.leaves(state), before[1])
        ), "update changed the state passed in"
        state = new_state
        ref_updates, ref_state = oracle.update(grads, ref_state, params)
        assert jax.tree.structure(updates) == jax.tree.structure(params)
        # the Adam step and the decay, each of order learning_rate, may cancel: an absolute
        # tolerance on that scale
        assert_trees_close(
            updates, ref_updates, rtol=1e-4, atol=1e-5 * learning_rate
        )
        params = jax.tree.map(jnp.add, params, updates)


@pytest.mark.requirement(4)
def test_defaults_are_optax_adamw_defaults(impl):
    """adamw(lr) alone: b1 = 0.9, b2 = 0.999, eps = 1e-8 and weight_decay =
    1e-4, the signature's and optax.adamw's defaults; zero gradients isolate
    the decay (-lr * 1e-4 * p)."""
    init, update = impl.adamw(0.1)
    params = make_params()
    zeros = jax.tree.map(jnp.zeros_like, params)
    updates, _ = update(zeros, init(params), params)
    assert_trees_close(
        updates, jax.tree.map(lambda p: -0.1 * 1e-4 * p, params)
    )
    params, ref_params = steps_against_oracle(
        init,
        update,
        optax.adamw(0.1),
        [jnp.full(s, 0.5) for s in SHAPES],
        [
            [np.full(s, v, np.float32) for s in SHAPES]
            for v in (1e-3, -2.0, 0.5)
        ],
        rtol=1e-5,
        atol=1e-9,
    )
    assert_trees_close(params, ref_params)
