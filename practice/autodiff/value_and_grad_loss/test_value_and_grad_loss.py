"""Tests for Value and Grad of a Loss."""

import math

import hypothesis.extra.numpy as hnp
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import example, given, strategies as st
from scipy.special import expit


def data(seed, n=32, d=3):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, d)).astype(np.float32)
    y = (x @ np.array([1.0, -2.0, 0.5][:d]) + 0.3 > 0).astype(np.float32)
    params = {
        "w": rng.normal(size=d).astype(np.float32),
        "b": np.float32(rng.normal()),
    }
    return jax.tree.map(jnp.asarray, params), jnp.asarray(x), jnp.asarray(y)


def np_loss_and_grad(params, x, y):
    """float64 NumPy reference: loss, dL/dw = X^T (sigmoid(z) - y) / n, dL/db = mean(sigmoid(z) - y)."""
    w, b = np.asarray(params["w"], np.float64), float(params["b"])
    x, y = np.asarray(x, np.float64), np.asarray(y, np.float64)
    z = x @ w + b
    loss = np.mean(np.logaddexp(0.0, z) - y * z)
    r = expit(z) - y
    return loss, x.T @ r / len(y), r.mean()


@st.composite
def problems(draw, scales=(1.0, 300.0, 3000.0)):
    """params, x (n, d), y (n,) for n in {1, 5}, d in {1, 3}; logits up to
    about 3e4 in magnitude when the weights are scaled."""
    n = draw(st.sampled_from([1, 5]))
    d = draw(st.sampled_from([1, 3]))
    floats = lambda shape: draw(
        hnp.arrays(np.float32, shape, elements=st.floats(-3, 3, width=32))
    )
    scale = np.float32(draw(st.sampled_from(scales)))
    params = {"w": floats(d) * scale, "b": np.float32(floats(()))}
    y = draw(hnp.arrays(np.float32, n, elements=st.sampled_from([0.0, 1.0])))
    return params, floats((n, d)), y


BIG = (
    {"w": np.float32([1.0]), "b": np.float32(0.0)},
    np.float32([[1000], [-1000], [10000], [-10000]]),
    np.float32([0, 1, 1, 0]),
)


@pytest.mark.requirement(1, 2, 3, 4)
@given(problems(), st.booleans())
@example(BIG, False)
@example(BIG, True)
def test_loss_and_grads_match_float64(impl, case, jit):
    params, x, y = case
    ref_loss, ref_gw, ref_gb = np_loss_and_grad(params, x, y)
    maybe_jit = jax.jit if jit else lambda f: f
    loss = maybe_jit(impl.logistic_loss)(params, x, y)
    assert loss.shape == () and loss.dtype == jnp.float32
    np.testing.assert_allclose(loss, ref_loss, rtol=1e-5, atol=1e-3)
    (loss, _), grads = maybe_jit(impl.loss_and_grad)(params, x, y)
    np.testing.assert_allclose(loss, ref_loss, rtol=1e-5, atol=1e-3)
    other = maybe_jit(jax.grad(impl.logistic_loss))(params, x, y)
    for g in (grads, other):
        assert jax.tree.structure(g) == jax.tree.structure(params)
        assert g["w"].shape == params["w"].shape and g["b"].shape == ()
        assert g["w"].dtype == jnp.float32 and g["b"].dtype == jnp.float32
        np.testing.assert_allclose(g["w"], ref_gw, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(g["b"], ref_gb, rtol=1e-4, atol=1e-5)


@pytest.mark.requirement(5)
@given(
    hnp.arrays(
        np.float32,
        st.sampled_from([1, 4, 7]),
        elements=st.sampled_from([0.0, 1e-9, -1e-9, 0.3, -0.3, 0.5, 2.0]),
    ),
    st.integers(0, 2**32 - 1),
)
@example(np.float32([0.0, 1e-9, -1e-9]), 0)
def test_accuracy_threshold_is_logit_zero(impl, z, seed):
    y = np.random.default_rng(seed).integers(0, 2, z.shape).astype(np.float32)
    params = {"w": jnp.ones(1), "b": jnp.float32(0.0)}
    (_, accuracy), _ = impl.loss_and_grad(params, z[:, None], y)
    assert accuracy.shape == () and accuracy.dtype == jnp.float32
    np.testing.assert_allclose(accuracy, np.mean((z > 0) == (y == 1)))


@pytest.mark.requirement(6, 7)
@given(problems(scales=(1.0,)), st.sampled_from([1, 3]))
@example(
    (
        {"w": np.float32([1.0]), "b": np.float32(0)},
        np.ones((1, 1)),
        np.ones(1),
    ),
    1,
)
def test_train_matches_float64_gradient_descent(impl, case, steps):
    params, x, y = case
    before = jax.tree.map(np.copy, params)
    given_params = jax.tree.map(jnp.asarray, params)
    final, losses = impl.train(given_params, x, y, 0.5, steps)
    assert losses.shape == (steps,) and losses.dtype == jnp.float32
    w, b = params["w"].astype(np.float64), np.float64(params["b"])
    for step in range(steps):
        loss, gw, gb = np_loss_and_grad({"w": w, "b": b}, x, y)
        np.testing.assert_allclose(losses[step], loss, rtol=1e-5, atol=1e-5)
        w, b = w - 0.5 * gw, b - 0.5 * gb
    np.testing.assert_allclose(final["w"], w, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(final["b"], b, rtol=1e-4, atol=1e-5)
    for key in params:
        np.testing.assert_array_equal(given_params[key], before[key])


@pytest.mark.requirement(1)
def test_loss_at_zero_params_is_log2(impl):
    _, x, y = data(0)
    zero = {"w": jnp.zeros(3), "b": jnp.float32(0.0)}
    out = impl.logistic_loss(zero, x, y)
    assert out.shape == () and out.dtype == jnp.float32
    np.testing.assert_allclose(out, math.log(2.0), rtol=1e-6)


@pytest.mark.requirement(1)
def test_loss_matches_numpy(impl):
    params, x, y = data(1)
    np.testing.assert_allclose(
        impl.logistic_loss(params, x, y),
        np_loss_and_grad(params, x, y)[0],
        rtol=1e-5,
    )


@pytest.mark.requirement(2)
def test_loss_is_stable_for_large_logits(impl):
    params = {"w": jnp.array([1.0]), "b": jnp.float32(0.0)}
    x = jnp.array([[1000.0], [-1000.0], [10000.0]])
    # z = 1000 with y = 0 costs 1000; z = -1000 with y = 0 costs ~0; z = 1e4 with y = 1 costs ~0.
    out = impl.logistic_loss(params, x, jnp.array([0.0, 0.0, 1.0]))
    assert np.isfinite(out)
    np.testing.assert_allclose(out, 1000.0 / 3, rtol=1e-5)


@st.composite
def logits_and_labels(draw):
    """z (n,) anywhere in [-1e4, 1e4] and labels y (n,) in {0, 1}."""
    n = draw(st.integers(1, 4))
    z = draw(
        hnp.arrays(np.float32, n, elements=st.floats(-1e4, 1e4, width=32))
    )
    y = draw(hnp.arrays(np.float32, n, elements=st.sampled_from([0.0, 1.0])))
    return z, y


@pytest.mark.requirement(2)
@given(logits_and_labels())
@example((np.float32([20.0]), np.float32([1.0])))
@example((np.float32([-20.0, 17.0]), np.float32([0.0, 1.0])))
@example((np.float32([100.0, 1e4]), np.float32([1.0, 1.0])))
def test_loss_is_relatively_accurate_where_tiny(impl, case):
    """Relative to the float64 loss, each term softplus(z) or softplus(-z)."""
    z, y = case
    params = {"w": jnp.array([1.0]), "b": jnp.float32(0.0)}
    x = jnp.asarray(z[:, None])  # z = x @ [1] + 0 exactly
    terms = np.logaddexp(0.0, np.where(y == 1, -z, z).astype(np.float64))
    want = terms.mean()
    (aux_loss, _), _ = impl.loss_and_grad(params, x, jnp.asarray(y))
    for loss in (impl.logistic_loss(params, x, jnp.asarray(y)), aux_loss):
        np.testing.assert_allclose(loss, want, rtol=1e-5, atol=1e-37)


@pytest.mark.requirement(3)
def test_grads_are_exact_for_large_logits(impl):
    # z = +-1000 and +-1e4: the float64 closed form gives sigmoid(z) - y = +-1 or 0, never nan.
    params = {"w": jnp.array([1.0]), "b": jnp.float32(0.0)}
    x = jnp.array([[1000.0], [-1000.0], [10000.0], [-10000.0], [1.0]])
    y = jnp.array([0.0, 1.0, 1.0, 1.0, 0.0])
    ref_loss, ref_gw, ref_gb = np_loss_and_grad(params, x, y)
    grad_fns = {
        "loss_and_grad": lambda p: impl.loss_and_grad(p, x, y)[1],
        "grad(logistic_loss)": lambda p: jax.grad(impl.logistic_loss)(p, x, y),
    }
    for name, grad_fn in grad_fns.items():
        for grads in (grad_fn(params), jax.jit(grad_fn)(params)):
            assert np.all(np.isfinite(grads["w"])) and np.isfinite(
                grads["b"]
            ), name
            np.testing.assert_allclose(
                grads["w"], ref_gw, rtol=1e-5, err_msg=name
            )
            np.testing.assert_allclose(
                grads["b"], ref_gb, rtol=1e-5, err_msg=name
            )
    (loss, _), _ = impl.loss_and_grad(params, x, y)
    np.testing.assert_allclose(loss, ref_loss, rtol=1e-5)


@pytest.mark.requirement(1, 3)
def test_grads_match_numpy_formula(impl):
    params, x, y = data(2)
    (loss, _), grads = impl.loss_and_grad(params, x, y)
    ref_loss, ref_gw, ref_gb = np_loss_and_grad(params, x, y)
    np.testing.assert_allclose(loss, ref_loss, rtol=1e-5)
    np.testing.assert_allclose(grads["w"], ref_gw, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(grads["b"], ref_gb, rtol=1e-4, atol=1e-6)


@pytest.mark.requirement(4)
def test_grads_have_the_structure_of_params(impl):
    params, x, y = data(3)
    _, grads = impl.loss_and_grad(params, x, y)
    assert jax.tree.structure(grads) == jax.tree.structure(params)
    for g, p in zip(jax.tree.leaves(grads), jax.tree.leaves(params)):
        assert g.shape == p.shape and g.dtype == jnp.float32


@pytest.mark.requirement(5)
def test_accuracy_aux_hand_computed(impl):
    params = {"w": jnp.array([1.0]), "b": jnp.float32(0.0)}
    x = jnp.array(
        [[2.0], [-1.0], [3.0], [-4.0]]
    )  # z = 2, -1, 3, -4 -> predicted 1, 0, 1, 0
    y = jnp.array([1.0, 1.0, 0.0, 0.0])  # correct: yes, no, no, yes
    (_, accuracy), _ = impl.loss_and_grad(params, x, y)
    assert accuracy.dtype == jnp.float32
    np.testing.assert_allclose(accuracy, 0.5)
    # The threshold is z = 0 (probability 1/2), not z = 0.5: z = 0.3 and 0.1 predict 1.
    x = jnp.array([[0.3], [0.1], [-0.2]])
    (_, accuracy), _ = impl.loss_and_grad(
        params, x, jnp.array([1.0, 1.0, 0.0])
    )
    np.testing.assert_allclose(accuracy, 1.0)


@pytest.mark.requirement(3)
def test_loss_and_grad_under_jit(impl):
    params, x, y = data(4)
    (loss, acc), grads = jax.jit(impl.loss_and_grad)(params, x, y)
    (loss_e, acc_e), grads_e = impl.loss_and_grad(params, x, y)
    np.testing.assert_allclose(loss, loss_e, rtol=1e-6)
    np.testing.assert_allclose(acc, acc_e)
    np.testing.assert_allclose(grads["w"], grads_e["w"], rtol=1e-5, atol=1e-7)


@pytest.mark.requirement(6, 7)
def test_train_matches_numpy_gradient_descent(impl):
    params, x, y = data(5)
    final, losses = impl.train(params, x, y, lr=0.5, steps=15)
    assert losses.shape == (15,)
    w, b = np.asarray(params["w"], np.float64), float(params["b"])
    ref_losses = []
    for _ in range(15):
        loss, gw, gb = np_loss_and_grad({"w": w, "b": b}, x, y)
        ref_losses.append(loss)
        w, b = w - 0.5 * gw, b - 0.5 * gb
    np.testing.assert_allclose(losses, ref_losses, rtol=1e-4)
    np.testing.assert_allclose(final["w"], w, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(final["b"], b, rtol=1e-4, atol=1e-5)
    assert np.all(np.diff(np.asarray(losses)) < 0), (
        "the loss should decrease at every step"
    )
    # the input params were not changed
    np.testing.assert_array_equal(params["w"], data(5)[0]["w"])
