"""Tests for Model Ensemble with in_axes."""

import hypothesis.extra.numpy as hnp
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import example, given, strategies as st

from practice._testing import normal

D_IN, D_HIDDEN, D_OUT = 3, 5, 2


def np_mlp(p, x):
    p = {name: np.asarray(a, dtype=np.float64) for name, a in p.items()}
    return (
        np.tanh(np.asarray(x, dtype=np.float64) @ p["w1"] + p["b1"]) @ p["w2"]
        + p["b2"]
    )


def expected_init(key, d_in=D_IN, d_hidden=D_HIDDEN, d_out=D_OUT):
    """The documented scheme, written out independently."""
    k1, k2 = jax.random.split(key)
    return {
        "w1": np.asarray(jax.random.normal(k1, (d_in, d_hidden)))
        / np.sqrt(d_in),
        "b1": np.zeros(d_hidden),
        "w2": np.asarray(jax.random.normal(k2, (d_hidden, d_out)))
        / np.sqrt(d_hidden),
        "b2": np.zeros(d_out),
    }


@pytest.mark.requirement(1)
def test_mlp_hand_values(impl):
    params = {
        "w1": jnp.array([[1.0, 0.0], [0.0, 2.0]]),
        "b1": jnp.array([0.0, -1.0]),
        "w2": jnp.array([[1.0], [1.0]]),
        "b2": jnp.array([0.5]),
    }
    x = jnp.array([[0.0, 0.0], [1.0, 0.5]])
    expected = [
        [np.tanh(0.0) + np.tanh(-1.0) + 0.5],
        [np.tanh(1.0) + np.tanh(0.0) + 0.5],
    ]
    np.testing.assert_allclose(impl.mlp(params, x), expected, rtol=1e-6)


@pytest.mark.requirement(2)
def test_init_mlp_follows_scheme(impl):
    params = impl.init_mlp(jax.random.key(3), D_IN, D_HIDDEN, D_OUT)
    expected = expected_init(jax.random.key(3))
    assert set(params) == set(expected)
    for name in expected:
        assert params[name].dtype == jnp.float32
        np.testing.assert_allclose(
            params[name], expected[name], rtol=1e-6, err_msg=name
        )


@pytest.mark.requirement(3)
def test_init_ensemble_members(impl):
    key, m = jax.random.key(7), 3
    ens = impl.init_ensemble(
        jax.random.clone(key), m, D_IN, D_HIDDEN, D_OUT
    )  # key reused below
    assert ens["w1"].shape == (m, D_IN, D_HIDDEN) and ens["b1"].shape == (
        m,
        D_HIDDEN,
    )
    assert ens["w2"].shape == (m, D_HIDDEN, D_OUT) and ens["b2"].shape == (
        m,
        D_OUT,
    )
    for i, k in enumerate(jax.random.split(key, m)):
        expected = expected_init(k)
        for name in expected:
            np.testing.assert_allclose(ens[name][i], expected[name], rtol=1e-6)
    assert not np.allclose(
        ens["w1"][0], ens["w1"][1]
    )  # the members really differ


def random_ensemble(seed, m):
    w1, b1, w2, b2 = normal(
        seed,
        (m, D_IN, D_HIDDEN),
        (m, D_HIDDEN),
        (m, D_HIDDEN, D_OUT),
        (m, D_OUT),
    )
    return {"w1": w1, "b1": b1, "w2": w2, "b2": b2}


def member(ens, i):
    return {name: leaf[i] for name, leaf in ens.items()}


@pytest.mark.requirement(4)
def test_predict_shared_batch(impl):
    ens = random_ensemble(0, 3)
    x = normal(1, (6, D_IN))
    out = impl.ensemble_predict(ens, x)
    assert out.shape == (3, 6, D_OUT)
    for i in range(3):
        np.testing.assert_allclose(
            out[i], np_mlp(member(ens, i), x), rtol=1e-5, atol=1e-6
        )


@pytest.mark.requirement(5)
def test_predict_split_batches(impl):
    ens = random_ensemble(2, 3)
    xs = normal(3, (3, 4, D_IN))
    out = impl.ensemble_predict_split(ens, xs)
    assert out.shape == (3, 4, D_OUT)
    for i in range(3):
        np.testing.assert_allclose(
            out[i], np_mlp(member(ens, i), xs[i]), rtol=1e-5, atol=1e-6
        )


@pytest.mark.requirement(4, 5)
def test_split_with_repeated_batch_equals_shared(impl):
    ens = random_ensemble(4, 5)
    x = normal(5, (2, D_IN))
    shared = impl.ensemble_predict(ens, x)
    split = impl.ensemble_predict_split(ens, jnp.broadcast_to(x, (5, 2, D_IN)))
    np.testing.assert_allclose(shared, split, rtol=1e-6)


@pytest.mark.requirement(4)
def test_under_jit_and_model_count_not_batch_count(impl):
    # M == B would hide a swapped in_axes; here M=3, B=4 and the shapes must come out right.
    ens = impl.init_ensemble(jax.random.key(8), 3, D_IN, D_HIDDEN, D_OUT)
    x = normal(9, (4, D_IN))
    out = jax.jit(impl.ensemble_predict)(ens, x)
    assert out.shape == (3, 4, D_OUT)
    np.testing.assert_allclose(
        out[1], np_mlp(member(ens, 1), x), rtol=1e-5, atol=1e-6
    )


SEEDS = st.integers(0, 2**31 - 1)
DIMS = st.sampled_from([1, 3, 5])


def floats(shape):
    return hnp.arrays(np.float32, shape, elements=st.floats(-2, 2, width=32))


@st.composite
def ensembles(draw):
    """Random (not freshly initialised) members: biases are non-zero."""
    m = draw(st.integers(1, 3))
    d_in, d_hidden, d_out = draw(DIMS), draw(DIMS), draw(DIMS)
    shapes = {
        "w1": (m, d_in, d_hidden),
        "b1": (m, d_hidden),
        "w2": (m, d_hidden, d_out),
        "b2": (m, d_out),
    }
    ens = {name: draw(floats(shape)) for name, shape in shapes.items()}
    return ens, draw(st.sampled_from([1, 4]))


@pytest.mark.requirement(1)
@given(ensembles())
def test_mlp_matches_float64(impl, case):
    ens, batch = case
    params = member(ens, 0)
    x = normal(batch, (batch, params["w1"].shape[0]))
    out = impl.mlp(params, x)
    assert out.shape == (batch, params["w2"].shape[1])
    np.testing.assert_allclose(out, np_mlp(params, x), rtol=1e-5, atol=1e-5)


@pytest.mark.requirement(2)
@given(SEEDS, DIMS, DIMS, DIMS)
@example(0, 1, 1, 1)
def test_init_mlp_matches_scheme(impl, seed, d_in, d_hidden, d_out):
    params = impl.init_mlp(jax.random.key(seed), d_in, d_hidden, d_out)
    expected = expected_init(jax.random.key(seed), d_in, d_hidden, d_out)
    assert set(params) == set(expected)
    for name in expected:
        assert params[name].shape == expected[name].shape
        assert params[name].dtype == jnp.float32
        np.testing.assert_allclose(
            params[name], expected[name], rtol=1e-6, err_msg=name
        )


@pytest.mark.requirement(3)
@given(SEEDS, st.integers(1, 4), st.sampled_from([1, 4]))
@example(0, 1, 1)
@example(2**31 - 1, 4, 4)
def test_init_ensemble_matches_scheme(impl, seed, m, d_hidden):
    ens = impl.init_ensemble(jax.random.key(seed), m, 2, d_hidden, 1)
    keys = jax.random.split(jax.random.key(seed), m)
    for i in range(m):
        expected = expected_init(keys[i], 2, d_hidden, 1)
        for name in expected:
            assert ens[name].shape == (m,) + expected[name].shape
            np.testing.assert_allclose(ens[name][i], expected[name], rtol=1e-6)


def fixed_ensemble(m, d_in, d_hidden, d_out):
    """m members with non-zero biases, all of one shape."""
    rng = np.random.default_rng(m)
    shapes = {"w1": (m, d_in, d_hidden), "b1": (m, d_hidden)}
    shapes |= {"w2": (m, d_hidden, d_out), "b2": (m, d_out)}
    return {
        name: rng.uniform(-2, 2, shape).astype(np.float32)
        for name, shape in shapes.items()
    }


@pytest.mark.requirement(4, 5)
@given(ensembles(), st.booleans())
@example((fixed_ensemble(1, 1, 1, 1), 1), True)  # M = B = 1, every size 1
@example((fixed_ensemble(1, 3, 5, 1), 4), False)  # M = 1
@example((fixed_ensemble(3, 1, 3, 5), 1), True)  # B = 1
def test_predict_matches_float64_per_member(impl, case, jit):
    ens, batch = case
    m, d_in = ens["w1"].shape[:2]
    maybe_jit = jax.jit if jit else lambda f: f
    x = normal(1, (batch, d_in))
    out = maybe_jit(impl.ensemble_predict)(ens, x)
    assert out.shape == (m, batch, ens["w2"].shape[2])
    xs = normal(2, (m, batch, d_in))
    split = maybe_jit(impl.ensemble_predict_split)(ens, xs)
    assert split.shape == out.shape
    for i in range(m):
        np.testing.assert_allclose(
            out[i], np_mlp(member(ens, i), x), rtol=1e-5, atol=1e-5
        )
        np.testing.assert_allclose(
            split[i], np_mlp(member(ens, i), xs[i]), rtol=1e-5, atol=1e-5
        )


@pytest.mark.requirement(6)
def test_programs_do_not_grow_with_the_models(impl):
    def sizes(m):
        init = lambda k: impl.init_ensemble(k, m, D_IN, D_HIDDEN, D_OUT)
        ens = random_ensemble(0, m)
        x, xs = normal(1, (4, D_IN), (m, 4, D_IN))
        return [
            len(jax.make_jaxpr(f)(*args).jaxpr.eqns)
            for f, args in [
                (init, (jax.random.key(0),)),
                (impl.ensemble_predict, (ens, x)),
                (impl.ensemble_predict_split, (ens, xs)),
            ]
        ]

    assert sizes(5) == sizes(2), "a program grows with M: a loop"
