"""Tests for SGD with Momentum over a Pytree."""

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
    w1, w2, scale = normal(0, (3, 2), (2, 1), ())
    return {
        "layers": [
            {"w": w1, "b": jnp.zeros(2)},
            {"w": w2, "b": jnp.zeros(1)},
        ],
        "scale": scale,
    }


assert_trees_close = partial(shared_assert_trees_close, rtol=1e-5, atol=1e-6)


def run_both(impl, lr, momentum, nesterov, steps=5, jit=False):
    init, update = impl.sgd_momentum(lr, momentum, nesterov=nesterov)
    if jit:
        update = jax.jit(update)
    oracle = optax.sgd(lr, momentum=momentum, nesterov=nesterov)
    params = ref_params = make_params()
    state, ref_state = init(params), oracle.init(ref_params)
    for step in range(steps):
        grads = grads_at(step, params)
        updates, state = update(grads, state, params)
        ref_updates, ref_state = oracle.update(grads, ref_state, ref_params)
        assert_trees_close(updates, ref_updates)
        params = jax.tree.map(jnp.add, params, updates)
        ref_params = optax.apply_updates(ref_params, ref_updates)
    assert_trees_close(params, ref_params)


@pytest.mark.requirement(1)
def test_hand_computed_three_steps(impl):
    init, update = impl.sgd_momentum(0.1, 0.9)
    params = {"w": jnp.array([1.0, 2.0])}
    g = {"w": jnp.array([1.0, -2.0])}
    state = init(params)
    # velocities 1, 1.9, 2.71 times g
    for factor in (1.0, 1.9, 2.71):
        updates, state = update(g, state, params)
        np.testing.assert_allclose(
            updates["w"], -0.1 * factor * np.array([1.0, -2.0]), rtol=1e-6
        )
        np.testing.assert_allclose(
            state["w"], factor * np.array([1.0, -2.0]), rtol=1e-6
        )


@pytest.mark.requirement(1)
def test_defaults_are_momentum_0_9_without_nesterov(impl):
    """sgd_momentum(lr) alone: the signature's momentum = 0.9 and no Nesterov,
    so the steps are 1, 1.9 and 2.71 times the gradient."""
    init, update = impl.sgd_momentum(0.1)
    params, g = {"w": jnp.array([1.0, 2.0])}, {"w": jnp.array([1.0, -2.0])}
    state = init(params)
    for factor in (1.0, 1.9, 2.71):
        updates, state = update(g, state, params)
        np.testing.assert_allclose(
            updates["w"], -0.1 * factor * np.array([1.0, -2.0]), rtol=1e-6
        )


@pytest.mark.requirement(2)
def test_nesterov_hand_computed_three_steps(impl):
    # The velocity is the same as without Nesterov (1, 1.9, 2.71 times g); the step follows the
    # look-ahead g + 0.9 * v_new: 1.9, 2.71, 3.439 times g.
    init, update = impl.sgd_momentum(0.1, 0.9, nesterov=True)
    params = {"w": jnp.array([1.0, 2.0])}
    g = {"w": jnp.array([1.0, -2.0])}
    state = init(params)
    for velocity, direction in ((1.0, 1.9), (1.9, 2.71), (2.71, 3.439)):
        updates, state = update(g, state, params)
        np.testing.assert_allclose(
            updates["w"], -0.1 * direction * np.array([1.0, -2.0]), rtol=1e-6
        )
        np.testing.assert_allclose(
            state["w"], velocity * np.array([1.0, -2.0]), rtol=1e-6
        )


@pytest.mark.requirement(3)
def test_init_is_zero_velocity_shaped_like_params(impl):
    init, _ = impl.sgd_momentum(0.1)
    params = make_params()
    state = init(params)
    assert jax.tree.structure(state) == jax.tree.structure(params)
    for v, p in zip(jax.tree.leaves(state), jax.tree.leaves(params)):
        assert v.shape == p.shape and v.dtype == p.dtype
        np.testing.assert_array_equal(v, np.zeros(p.shape))


@pytest.mark.requirement(4)
@pytest.mark.parametrize("nesterov", [False, True])
def test_matches_optax_sgd(impl, nesterov):
    run_both(impl, lr=0.05, momentum=0.9, nesterov=nesterov)


@pytest.mark.requirement(5)
@pytest.mark.parametrize("nesterov", [False, True])
def test_matches_optax_under_jit(impl, nesterov):
    run_both(impl, lr=0.1, momentum=0.5, nesterov=nesterov, steps=4, jit=True)


@pytest.mark.requirement(4)
def test_zero_momentum_is_plain_sgd(impl):
    init, update = impl.sgd_momentum(0.3, momentum=0.0)
    params = make_params()
    state = init(params)
    for step in range(2):
        grads = grads_at(step, params)
        updates, state = update(grads, state, params)
        assert_trees_close(updates, jax.tree.map(lambda g: -0.3 * g, grads))


@pytest.mark.requirement(6)
def test_update_is_pure(impl):
    init, update = impl.sgd_momentum(0.1, 0.9)
    params = make_params()
    state = init(params)
    grads = grads_at(0, params)
    _, state = update(grads, state, params)
    first = update(grads, state, params)
    second = update(
        grads, state, params
    )  # same inputs, same outputs: no hidden state
    assert_trees_close(first, second, rtol=0, atol=0)


@pytest.mark.requirement(5)
def test_minimises_a_quadratic(impl):
    init, update = impl.sgd_momentum(0.1, 0.5)
    target = {"a": jnp.array([1.0, -2.0]), "b": {"c": jnp.array(3.0)}}
    loss = lambda p: sum(
        jnp.sum((x - t) ** 2)
        for x, t in zip(jax.tree.leaves(p), jax.tree.leaves(target))
    )
    params = jax.tree.map(jnp.zeros_like, target)
    state = init(params)
    step = jax.jit(lambda p, s: update(jax.grad(loss)(p), s, p))
    for _ in range(100):
        updates, state = step(params, state)
        params = jax.tree.map(jnp.add, params, updates)
    assert float(loss(params)) < 1e-6


SHAPES = [(1,), (3, 1), (), (2, 5)]  # size-1 axes, a scalar, odd sizes
DTYPES = [jnp.float32, jnp.bfloat16, jnp.float16]


@pytest.mark.requirement(3)
@given(dtypes=st.lists(st.sampled_from(DTYPES), min_size=4, max_size=4))
def test_property_init_keeps_shapes_and_dtypes(impl, dtypes):
    init, _ = impl.sgd_momentum(0.1)
    params = {
        "a": [jnp.ones(s, d) for s, d in zip(SHAPES[:2], dtypes)],
        "b": {"c": jnp.ones(SHAPES[2], dtypes[2])},
        "d": jnp.ones(SHAPES[3], dtypes[3]),
    }
    state = init(params)
    assert jax.tree.structure(state) == jax.tree.structure(params)
    for v, p in zip(jax.tree.leaves(state), jax.tree.leaves(params)):
        assert v.shape == p.shape and v.dtype == p.dtype
        np.testing.assert_array_equal(np.asarray(v, np.float32), 0)


@st.composite
def gradient_steps(draw):
    """Four steps of gradients for the leaves SHAPES."""
    unit = st.floats(-1, 1, width=32)
    return [
        [draw(hnp.arrays(np.float32, s, elements=unit)) for s in SHAPES]
        for _ in range(4)
    ]


@pytest.mark.requirement(4)
@given(
    steps=gradient_steps(),
    learning_rate=st.sampled_from([1e-3, 0.1, 1.0]),
    momentum=st.sampled_from([0.0, 0.5, 0.9, 0.99]),
    nesterov=st.booleans(),
)
def test_property_matches_optax_sgd(
    impl, steps, learning_rate, momentum, nesterov
):
    init, update = impl.sgd_momentum(learning_rate, momentum, nesterov)
    oracle = optax.sgd(learning_rate, momentum=momentum, nesterov=nesterov)
    start = [jnp.full(s, 0.5) for s in SHAPES]
    params, ref_params = steps_against_oracle(
        init, update, oracle, start, steps, rtol=1e-5, atol=1e-7
    )
    assert_trees_close(params, ref_params)


@pytest.mark.requirement(4)
@given(
    momentum=st.floats(0, 1, exclude_max=True),
    learning_rate=st.floats(1e-4, 10),
    nesterov=st.booleans(),
    container=st.sampled_from(sorted(CONTAINERS)),
    steps=gradient_steps(),
)
@example(
    momentum=0.0,
    learning_rate=0.3,
    nesterov=False,
    container="tuple",
    steps=[[np.ones(s, np.float32) for s in SHAPES]] * 4,
)
@example(
    momentum=0.0,
    learning_rate=0.3,
    nesterov=True,
    container="named tuple",
    steps=[[np.ones(s, np.float32) for s in SHAPES]] * 4,
)
@example(
    momentum=1 - 2**-20,
    learning_rate=1e-4,
    nesterov=True,
    container="nested",
    steps=[[np.full(s, -1, np.float32) for s in SHAPES]] * 4,
)
def test_whole_range_matches_optax_sgd(
    impl, momentum, learning_rate, nesterov, container, steps
):
    """Every momentum in [0, 1) (0 and just below 1 named), learning rates from 1e-4 to 10, and
    every pytree container (dict, list, tuple, named tuple, nested): optax.sgd's updates, in the
    caller's structure."""
    build = CONTAINERS[container]
    init, update = impl.sgd_momentum(learning_rate, momentum, nesterov)
    oracle = optax.sgd(learning_rate, momentum=momentum, nesterov=nesterov)
    params = build(*[jnp.full(s, 0.5) for s in SHAPES])
    state, ref_state = init(params), oracle.init(params)
    for grads in steps:
        grads = build(*[jnp.asarray(g) for g in grads])
        updates, state = update(grads, state, params)
        ref_updates, ref_state = oracle.update(grads, ref_state, params)
        assert jax.tree.structure(updates) == jax.tree.structure(params)
        assert_trees_close(updates, ref_updates)
        params = jax.tree.map(jnp.add, params, updates)
