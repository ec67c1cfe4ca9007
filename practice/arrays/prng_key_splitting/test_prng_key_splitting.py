"""Tests for PRNG Key Splitting. Every test runs with key-reuse checking switched on."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import example, given, strategies as st

SEEDS = st.integers(0, 2**31 - 1)


@pytest.fixture(autouse=True)
def check_key_reuse():
    """Turn any reuse of a typed key into a jax.errors.KeyReuseError."""
    with jax.debug_key_reuse(True):
        yield


def recipe_mlp(seed, sizes):
    """The docstring's recipe, step by step: the oracle for init_mlp."""
    layer_keys = jax.random.split(jax.random.key(seed), len(sizes) - 1)
    params = []
    for k, d_in, d_out in zip(layer_keys, sizes[:-1], sizes[1:]):
        w_key, b_key = jax.random.split(k)
        w = np.asarray(jax.random.normal(w_key, (d_in, d_out))) / np.sqrt(d_in)
        params.append(
            (w, 0.01 * np.asarray(jax.random.normal(b_key, (d_out,))))
        )
    return params


@pytest.mark.requirement(1, 2, 3)
@given(SEEDS, st.lists(st.sampled_from([1, 3, 4]), min_size=2, max_size=4))
@example(0, [1, 1])
@example(0, [3, 1, 4])
def test_init_mlp_matches_recipe(impl, seed, sizes):
    params = impl.init_mlp(jax.random.key(seed), sizes)
    expected = recipe_mlp(seed, sizes)
    assert len(params) == len(expected)
    for (w, b), (w_ref, b_ref) in zip(params, expected):
        assert w.shape == w_ref.shape and b.shape == b_ref.shape
        assert w.dtype == jnp.float32 and b.dtype == jnp.float32
        np.testing.assert_allclose(w, w_ref, rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(b, b_ref, rtol=1e-6, atol=1e-9)


@pytest.mark.requirement(4, 5)
@given(
    SEEDS,
    st.sampled_from([(), (1,), (3, 1), (2, 5)]),
    st.sampled_from([0.0, 0.25, 0.5, 0.9]),
)
@example(0, (2, 5), 0.0)
def test_dropout_matches_recipe(impl, seed, shape, rate):
    x = np.random.default_rng(seed).normal(size=shape).astype(np.float32)
    out = impl.dropout(jax.random.key(seed), jnp.asarray(x), rate)
    keep = np.asarray(
        jax.random.bernoulli(jax.random.key(seed), 1 - rate, shape)
    )
    assert out.shape == shape and out.dtype == jnp.float32
    np.testing.assert_allclose(
        out, np.where(keep, x / (1 - np.float64(rate)), 0.0), rtol=1e-6
    )


@pytest.mark.requirement(7, 8)
@given(SEEDS, st.sampled_from([1, 2, 7]), st.integers(-3, 3).map(float))
@example(0, 1, 2.0)
def test_random_walk_matches_recipe(impl, seed, n_steps, start):
    out = impl.random_walk(jax.random.key(seed), n_steps, start)
    assert out.shape == (n_steps,) and out.dtype == jnp.float32
    key, steps = jax.random.key(seed), []
    for _ in range(n_steps):
        key, subkey = jax.random.split(key)
        steps.append(float(jax.random.normal(subkey, ())))
    np.testing.assert_allclose(out, start + np.cumsum(steps), rtol=1e-5)


@pytest.mark.requirement(7)
@pytest.mark.parametrize("n_steps", [1, 4])
def test_random_walk_starts_at_zero_by_default(impl, n_steps):
    """The signature's default, start = 0.0: the first position is the
    first step itself, bit for bit."""
    out = impl.random_walk(jax.random.key(3), n_steps)
    _, subkey = jax.random.split(jax.random.key(3))
    assert out.shape == (n_steps,) and out.dtype == jnp.float32
    assert out[0] == jax.random.normal(subkey, ())
    np.testing.assert_array_equal(
        out, impl.random_walk(jax.random.key(3), n_steps, 0.0)
    )


@pytest.mark.requirement(1, 2)
def test_init_mlp_follows_the_recipe(impl):
    sizes = (3, 5, 2)
    params = impl.init_mlp(jax.random.key(0), sizes)
    assert len(params) == 2
    layer_keys = jax.random.split(jax.random.key(0), 2)
    for (w, b), k, d_in, d_out in zip(
        params, layer_keys, sizes[:-1], sizes[1:]
    ):
        assert w.shape == (d_in, d_out) and b.shape == (d_out,)
        assert w.dtype == jnp.float32 and b.dtype == jnp.float32
        w_key, b_key = jax.random.split(k)
        np.testing.assert_allclose(
            w,
            jax.random.normal(w_key, (d_in, d_out)) / np.sqrt(d_in),
            rtol=1e-6,
        )
        np.testing.assert_allclose(
            b, 0.01 * jax.random.normal(b_key, (d_out,)), rtol=1e-6
        )


@pytest.mark.requirement(3)
def test_init_mlp_layers_are_independent(impl):
    params = impl.init_mlp(jax.random.key(1), [4, 4, 4, 4])
    ws = [np.asarray(w) for w, _ in params]
    bs = [np.asarray(b) for _, b in params]
    for a in range(3):
        for c in range(a + 1, 3):
            assert not np.allclose(ws[a], ws[c]), (
                "two layers got the same weights"
            )
            assert not np.allclose(bs[a], bs[c]), (
                "two layers got the same biases"
            )
        # the bias must not be a rescaled copy of the first weights of the same key
        assert not np.allclose(bs[a] / 0.01, ws[a].ravel()[:4] * 2.0)


@pytest.mark.requirement(1, 3)
def test_init_mlp_scale_and_determinism(impl):
    ((w, b),) = impl.init_mlp(jax.random.key(2), (400, 300))
    assert abs(float(jnp.std(w)) - 1 / np.sqrt(400)) < 0.002
    assert abs(float(jnp.mean(w))) < 0.002
    assert float(jnp.std(b)) < 0.02
    ((w_again, _),) = impl.init_mlp(jax.random.key(2), (400, 300))
    np.testing.assert_array_equal(w, w_again)
    ((w_other, _),) = impl.init_mlp(jax.random.key(3), (400, 300))
    assert not np.allclose(w, w_other)


@pytest.mark.requirement(1)
def test_init_mlp_under_jit(impl):
    init = jax.jit(impl.init_mlp, static_argnums=1)
    jitted = init(jax.random.key(4), (2, 3, 1))
    eager = impl.init_mlp(jax.random.key(4), (2, 3, 1))
    for (w1, b1), (w2, b2) in zip(jitted, eager):
        np.testing.assert_allclose(w1, w2, rtol=1e-6)
        np.testing.assert_allclose(b1, b2, rtol=1e-6)


@pytest.mark.requirement(4)
def test_dropout_follows_the_recipe(impl):
    x = jnp.arange(1.0, 13.0).reshape(3, 4)
    out = impl.dropout(jax.random.key(5), x, 0.25)
    keep = np.asarray(jax.random.bernoulli(jax.random.key(5), 0.75, (3, 4)))
    np.testing.assert_allclose(
        out, np.where(keep, np.asarray(x) / 0.75, 0.0), rtol=1e-6
    )
    assert out.dtype == jnp.float32


@pytest.mark.requirement(4)
def test_dropout_statistics(impl):
    x = jnp.ones((200, 50))
    out = np.asarray(impl.dropout(jax.random.key(6), x, 0.3))
    dropped = np.mean(out == 0.0)
    assert abs(dropped - 0.3) < 0.02
    np.testing.assert_allclose(out[out != 0.0], 1 / 0.7, rtol=1e-6)
    assert abs(out.mean() - 1.0) < 0.03  # inverted dropout keeps the mean


@pytest.mark.requirement(5, 6)
def test_dropout_rate_zero_and_traced_rate(impl):
    x = jnp.linspace(-1.0, 1.0, 10)
    np.testing.assert_array_equal(impl.dropout(jax.random.key(7), x, 0.0), x)
    f = jax.jit(impl.dropout)
    out = f(jax.random.key(8), jnp.ones(1000), jnp.float32(0.5))
    assert abs(float(jnp.mean(out == 0.0)) - 0.5) < 0.06


@pytest.mark.requirement(7)
def test_random_walk_follows_the_recipe(impl):
    out = impl.random_walk(jax.random.key(9), 5, start=1.5)
    assert out.shape == (5,) and out.dtype == jnp.float32
    key, position, expected = jax.random.key(9), 1.5, []
    for _ in range(5):
        key, subkey = jax.random.split(key)
        position = position + float(jax.random.normal(subkey, ()))
        expected.append(position)
    np.testing.assert_allclose(out, expected, rtol=1e-5)


@pytest.mark.requirement(8)
def test_random_walk_steps_are_fresh(impl):
    out = np.asarray(impl.random_walk(jax.random.key(10), 300))
    steps = np.diff(np.concatenate([[0.0], out]))
    assert len(np.unique(steps)) == 300, (
        "some steps repeat: a subkey was reused"
    )
    assert abs(steps.std() - 1.0) < 0.1 and abs(steps.mean()) < 0.15


@pytest.mark.requirement(4, 7)
@given(
    SEEDS,
    st.sampled_from([0.1, 0.3, 0.7]),
    st.sampled_from([1, 6, 40]),
    st.sampled_from([0.0, 0.1, -3.7]),
)
@example(0, 0.3, 40, 0.1)
def test_recipes_are_followed_to_the_last_bit(
    impl, seed, rate, n_steps, start
):
    """ "Exactly": the recipe's float32 operations in its order, run by JAX
    as the oracle (x * (1 / (1 - rate)) or a cumsum of the steps rounds
    differently)."""
    x = jnp.asarray(
        np.random.default_rng(seed).normal(size=(64,)), jnp.float32
    )
    keep = jax.random.bernoulli(jax.random.key(seed), 1 - rate, x.shape)
    want = jnp.where(keep, x / (1 - rate), 0.0)
    got = impl.dropout(jax.random.key(seed), x, rate)
    np.testing.assert_array_equal(
        np.asarray(got).view(np.uint32), np.asarray(want).view(np.uint32)
    )
    key, position, positions = jax.random.key(seed), jnp.float32(start), []
    for _ in range(n_steps):
        key, subkey = jax.random.split(key)
        position = position + jax.random.normal(subkey, ())
        positions.append(position)
    got = impl.random_walk(jax.random.key(seed), n_steps, start)
    np.testing.assert_array_equal(
        np.asarray(got).view(np.uint32),
        np.asarray(jnp.stack(positions)).view(np.uint32),
    )
