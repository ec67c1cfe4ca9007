"""Tests for Global Norm Gradient Clipping."""

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest
from hypothesis import example, given, strategies as st
from hypothesis.extra import numpy as hnp

from practice._testing import normal


def random_tree(seed, scale=1.0):
    w, b, head = normal(seed, (4, 3), (3,), (3, 2))
    return {
        "encoder": {"w": scale * w, "b": scale * b},
        "head": [scale * head, jnp.array(scale * 0.5)],
    }


def np_global_norm(tree):
    return np.sqrt(
        sum(
            np.sum(np.asarray(x, np.float64) ** 2)
            for x in jax.tree.leaves(tree)
        )
    )


def assert_trees_close(a, b, rtol=1e-6, atol=1e-7):
    assert jax.tree.structure(a) == jax.tree.structure(b)
    for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b)):
        assert x.dtype == y.dtype and x.shape == y.shape
        np.testing.assert_allclose(
            np.asarray(x, np.float32),
            np.asarray(y, np.float32),
            rtol=rtol,
            atol=atol,
        )


@pytest.mark.requirement(1)
def test_global_norm_values(impl):
    tree = {
        "a": jnp.array([3.0]),
        "b": [jnp.array([[0.0, 4.0]]), jnp.array(12.0)],
    }
    np.testing.assert_allclose(impl.global_norm(tree), 13.0, rtol=1e-6)
    big = random_tree(0, scale=2.0)
    np.testing.assert_allclose(
        impl.global_norm(big), np_global_norm(big), rtol=1e-5
    )
    np.testing.assert_allclose(
        impl.global_norm(big), optax.tree.norm(big), rtol=1e-5
    )


@pytest.mark.requirement(2)
def test_bfloat16_tree_norm_accumulates_in_float32(impl):
    # 65k bfloat16 squares summed in bfloat16 keep about 3 significant digits; accumulated in
    # float32 the norm agrees with float64 NumPy to 1e-5.
    tree = [
        x.astype(jnp.bfloat16) for x in normal(5, (256, 256), (1000,), (3, 7))
    ]
    for norm in (impl.global_norm(tree), jax.jit(impl.global_norm)(tree)):
        assert norm.dtype == jnp.float32 and norm.shape == ()
        np.testing.assert_allclose(norm, np_global_norm(tree), rtol=1e-5)


@pytest.mark.requirement(3)
def test_clip_hand_values(impl):
    init, update = impl.clip_by_global_norm(1.0)
    grads = {"a": jnp.array([3.0]), "b": jnp.array([[0.0, 4.0]])}  # norm 5
    assert init(grads) == ()
    clipped, state = update(grads, init(grads))
    assert state == ()
    np.testing.assert_allclose(clipped["a"], [0.6], rtol=1e-6)
    np.testing.assert_allclose(clipped["b"], [[0.0, 0.8]], rtol=1e-6)


@pytest.mark.requirement(4)
def test_small_gradients_unchanged(impl):
    init, update = impl.clip_by_global_norm(100.0)
    grads = random_tree(1)
    clipped, _ = update(grads, init(grads))
    assert_trees_close(clipped, grads, rtol=0, atol=0)


@pytest.mark.requirement(5)
@pytest.mark.parametrize("max_norm", [0.5, 2.0, 50.0])
def test_matches_optax(impl, max_norm):
    init, update = impl.clip_by_global_norm(max_norm)
    oracle = optax.clip_by_global_norm(max_norm)
    for seed in range(3):
        grads = random_tree(10 + seed, scale=3.0)
        clipped, _ = update(grads, init(grads))
        expected, _ = oracle.update(grads, oracle.init(grads))
        assert_trees_close(clipped, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.requirement(6)
def test_direction_kept_and_norm_equals_max(impl):
    init, update = impl.clip_by_global_norm(0.7)
    grads = random_tree(2, scale=5.0)
    clipped, _ = update(grads, init(grads))
    np.testing.assert_allclose(np_global_norm(clipped), 0.7, rtol=1e-5)
    factor = 0.7 / np_global_norm(grads)
    assert_trees_close(
        clipped,
        jax.tree.map(lambda g: g * factor, grads),
        rtol=1e-5,
        atol=1e-6,
    )


@pytest.mark.requirement(7)
def test_zero_gradient_gives_zeros_not_nan(impl):
    init, update = impl.clip_by_global_norm(1.0)
    grads = jax.tree.map(jnp.zeros_like, random_tree(3))
    clipped, _ = jax.jit(update)(grads, init(grads))
    for leaf in jax.tree.leaves(clipped):
        np.testing.assert_array_equal(leaf, np.zeros(leaf.shape))


@pytest.mark.requirement(8)
def test_under_jit_with_traced_norm(impl):
    init, update = impl.clip_by_global_norm(1.0)
    oracle = optax.clip_by_global_norm(1.0)
    step = jax.jit(update)
    for scale in (
        0.01,
        10.0,
    ):  # one below and one above the threshold, same compiled function
        grads = random_tree(4, scale=scale)
        clipped, _ = step(grads, init(grads))
        expected, _ = oracle.update(grads, oracle.init(grads))
        assert_trees_close(clipped, expected, rtol=1e-5, atol=1e-7)


@pytest.mark.requirement(9)
def test_bfloat16_leaves_keep_dtype(impl):
    init, update = impl.clip_by_global_norm(1.0)
    grads = {
        "w": jnp.array([3.0, 4.0], jnp.bfloat16),
        "b": jnp.array([0.0], jnp.float32),
    }
    clipped, _ = update(grads, init(grads))
    assert (
        clipped["w"].dtype == jnp.bfloat16
        and clipped["b"].dtype == jnp.float32
    )
    np.testing.assert_allclose(
        np.asarray(clipped["w"], np.float32), [0.6, 0.8], rtol=1e-2
    )


SHAPES = [(1,), (3, 1), (), (2, 5)]  # size-1 axes, a scalar, odd sizes
DTYPES = {
    "float32": jnp.float32,
    "bfloat16": jnp.bfloat16,
    "float16": jnp.float16,
}
RTOL = {"float32": 1e-5, "bfloat16": 1e-2, "float16": 2e-3}


@st.composite
def gradient_trees(draw):
    """Leaves of SHAPES, each of its own dtype, at one magnitude (up to 300:
    squares above float16's largest value, 65504). Entries are 0 or at least
    1e-15, the smallest scale requirement 10 promises: below about 1e-19 the
    float32 squares underflow."""
    scale = draw(st.sampled_from([0.0, 1e-3, 1.0, 300.0]))
    unit = st.floats(-1, 1, width=32).filter(
        lambda v: v == 0 or abs(v) >= 1e-12
    )
    return [
        jnp.asarray(
            scale * draw(hnp.arrays(np.float32, s, elements=unit)),
            DTYPES[draw(st.sampled_from(sorted(DTYPES)))],
        )
        for s in SHAPES
    ]


@pytest.mark.requirement(1, 2, 4, 5, 6, 9)
@given(grads=gradient_trees(), max_norm=st.sampled_from([0.5, 2.0, 50.0]))
@example(
    grads=[
        jnp.full((1,), 300.0, jnp.float16),
        jnp.full((3, 1), 1.0, jnp.bfloat16),
        jnp.array(0.5),
        jnp.zeros((2, 5)),
    ],
    max_norm=2.0,
)
@example(  # a float16 subnormal (1e-6) whose clipped value rounds to 8 / 2**24
    grads=[
        jnp.full((1,), 1e-6, jnp.float16),
        jnp.zeros((3, 1), jnp.bfloat16),
        jnp.array(0, jnp.bfloat16),
        jnp.zeros((2, 5), jnp.bfloat16).at[1, 4].set(1),
    ],
    max_norm=0.5,
)
def test_property_matches_float64_numpy(impl, grads, max_norm):
    x64 = [np.asarray(g, np.float64) for g in grads]
    norm = np.sqrt(sum(np.sum(x**2) for x in x64))
    got = impl.global_norm(grads)
    assert got.dtype == jnp.float32 and got.shape == ()
    np.testing.assert_allclose(got, norm, rtol=1e-5)
    init, update = impl.clip_by_global_norm(max_norm)
    clipped, _ = update(grads, init(grads))
    factor = 1.0 if norm < max_norm else max_norm / norm
    for c, g, x in zip(clipped, grads, x64):
        assert c.dtype == g.dtype and c.shape == g.shape
        name = jnp.dtype(g.dtype).name
        if factor == 1.0:
            np.testing.assert_array_equal(c, g)
        # a clipped leaf is rounded to its dtype: below the dtype's smallest
        # normal number the spacing is its smallest subnormal, not relative
        tiny = float(jnp.finfo(g.dtype).smallest_subnormal)
        np.testing.assert_allclose(
            np.asarray(c, np.float64), x * factor, rtol=RTOL[name], atol=tiny
        )


# Unit entries of 0 or at least 1e-3: times 1e-15, their float32 squares stay
# normal (a unit of 1e-31 would underflow at every scale).
UNIT = st.floats(-1, 1, width=32).filter(lambda v: v == 0 or abs(v) >= 1e-3)


@pytest.mark.requirement(10)
@given(
    unit=st.lists(
        hnp.arrays(np.float32, (3,), elements=UNIT),
        min_size=1,
        max_size=3,
    ),
    exponent=st.integers(-15, 18),
    ratio=st.sampled_from([0.5, 2.0, 50.0]),
)
@example(unit=[np.float32([1, -1, 0.5])], exponent=-15, ratio=0.5)
@example(unit=[np.float32([1, -1, 0.5])], exponent=-15, ratio=2.0)
@example(unit=[np.float32([1, -1, 0.5])] * 3, exponent=18, ratio=0.5)
def test_every_scale_from_1e_15_to_1e18(impl, unit, exponent, ratio):
    scale = np.float32(10.0**exponent)
    grads = [jnp.asarray(u * scale) for u in unit]
    max_norm = float(np.float32(ratio * 10.0**exponent))
    x64 = [np.asarray(g, np.float64) for g in grads]
    norm = np.sqrt(sum(np.sum(x**2) for x in x64))
    np.testing.assert_allclose(impl.global_norm(grads), norm, rtol=1e-5)
    init, update = impl.clip_by_global_norm(max_norm)
    clipped, _ = update(grads, init(grads))
    factor = 1.0 if norm < max_norm else max_norm / norm
    for c, g, x in zip(clipped, grads, x64):
        if factor == 1.0:
            np.testing.assert_array_equal(c, g)
        np.testing.assert_allclose(
            np.asarray(c, np.float64), x * factor, rtol=1e-5, atol=1e-45
        )
