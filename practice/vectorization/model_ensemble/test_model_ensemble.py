"""Tests for Model Ensemble with in_axes."""

import jax
import jax.numpy as jnp
import numpy as np

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


def test_init_mlp_follows_scheme(impl):
    params = impl.init_mlp(jax.random.key(3), D_IN, D_HIDDEN, D_OUT)
    expected = expected_init(jax.random.key(3))
    assert set(params) == set(expected)
    for name in expected:
        assert params[name].dtype == jnp.float32
        np.testing.assert_allclose(
            params[name], expected[name], rtol=1e-6, err_msg=name
        )


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


def test_predict_shared_batch(impl):
    ens = random_ensemble(0, 3)
    x = normal(1, (6, D_IN))
    out = impl.ensemble_predict(ens, x)
    assert out.shape == (3, 6, D_OUT)
    for i in range(3):
        np.testing.assert_allclose(
            out[i], np_mlp(member(ens, i), x), rtol=1e-5, atol=1e-6
        )


def test_predict_split_batches(impl):
    ens = random_ensemble(2, 3)
    xs = normal(3, (3, 4, D_IN))
    out = impl.ensemble_predict_split(ens, xs)
    assert out.shape == (3, 4, D_OUT)
    for i in range(3):
        np.testing.assert_allclose(
            out[i], np_mlp(member(ens, i), xs[i]), rtol=1e-5, atol=1e-6
        )


def test_split_with_repeated_batch_equals_shared(impl):
    ens = random_ensemble(4, 5)
    x = normal(5, (2, D_IN))
    shared = impl.ensemble_predict(ens, x)
    split = impl.ensemble_predict_split(ens, jnp.broadcast_to(x, (5, 2, D_IN)))
    np.testing.assert_allclose(shared, split, rtol=1e-6)


def test_under_jit_and_model_count_not_batch_count(impl):
    # M == B would hide a swapped in_axes; here M=3, B=4 and the shapes must come out right.
    ens = impl.init_ensemble(jax.random.key(8), 3, D_IN, D_HIDDEN, D_OUT)
    x = normal(9, (4, D_IN))
    out = jax.jit(impl.ensemble_predict)(ens, x)
    assert out.shape == (3, 4, D_OUT)
    np.testing.assert_allclose(
        out[1], np_mlp(member(ens, 1), x), rtol=1e-5, atol=1e-6
    )
