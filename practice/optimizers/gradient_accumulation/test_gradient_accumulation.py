"""Tests for Gradient Accumulation with Scan."""

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from practice._testing import (
    assert_trees_close as shared_assert_trees_close,
    normal,
)


def linear_loss(params, batch):
    """Mean squared error of a linear model. batch["x"]: (n, 3), batch["y"]: (n,)."""
    pred = batch["x"] @ params["w"] + params["b"]
    return jnp.mean((pred - batch["y"]) ** 2)


def mlp_loss(params, batch):
    """Mean squared error of a 2-layer MLP with nested params."""
    h = jnp.tanh(batch["x"] @ params["hidden"]["w"] + params["hidden"]["b"])
    pred = h @ params["out"]["w"]
    return jnp.mean((pred[:, 0] - batch["y"]) ** 2)


def linear_problem(n=16):
    x, y, w = normal(0, (n, 3), (n,), (3,))
    batch = {"x": x, "y": y}
    params = {"w": w, "b": jnp.array(0.3)}
    return params, batch


def mlp_problem(n=12):
    x, y, w1, b1, w2 = normal(1, (n, 4), (n,), (4, 5), (5,), (5, 1))
    batch = {"x": x, "y": y}
    params = {"hidden": {"w": w1, "b": b1}, "out": {"w": w2}}
    return params, batch


assert_trees_close = partial(shared_assert_trees_close, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("k", [1, 2, 4, 8])
def test_linear_matches_analytic_full_batch_gradient(impl, k):
    params, batch = linear_problem()
    loss, grads = impl.accumulate_gradients(linear_loss, params, batch, k)
    x, y = (
        np.asarray(batch["x"], np.float64),
        np.asarray(batch["y"], np.float64),
    )
    r = x @ np.asarray(params["w"], np.float64) + float(params["b"]) - y
    np.testing.assert_allclose(loss, np.mean(r**2), rtol=1e-5)
    np.testing.assert_allclose(
        grads["w"], 2 * x.T @ r / len(y), rtol=1e-5, atol=1e-6
    )
    np.testing.assert_allclose(
        grads["b"], 2 * np.mean(r), rtol=1e-5, atol=1e-6
    )


def test_mlp_matches_full_batch_value_and_grad(impl):
    params, batch = mlp_problem()
    loss, grads = impl.accumulate_gradients(mlp_loss, params, batch, 3)
    ref_loss, ref_grads = jax.value_and_grad(mlp_loss)(params, batch)
    np.testing.assert_allclose(loss, ref_loss, rtol=1e-5)
    assert_trees_close(grads, ref_grads)


def test_loss_fn_only_sees_micro_batches(impl):
    seen = []

    def recording_loss(params, batch):
        seen.append(
            batch["x"].shape
        )  # runs while tracing: records the shapes loss_fn gets
        return linear_loss(params, batch)

    params, batch = linear_problem(n=16)
    impl.accumulate_gradients(recording_loss, params, batch, 4)
    assert seen and all(shape == (4, 3) for shape in seen)


def test_micro_batches_are_contiguous_slices(impl):
    # The loss of each micro-batch is the first y it sees; the mean over micro-batches then
    # reveals which examples opened each slice: y[0], y[4], y[8] for B=12, k=3.
    params = {"w": jnp.array(0.0)}
    batch = {"y": jnp.arange(12.0)}
    first_y = lambda p, b: b["y"][0] + 0.0 * p["w"]
    loss, _ = impl.accumulate_gradients(first_y, params, batch, 3)
    np.testing.assert_allclose(loss, (0.0 + 4.0 + 8.0) / 3)


def test_uses_scan(impl):
    params, batch = linear_problem()
    jaxpr = jax.make_jaxpr(
        lambda p, b: impl.accumulate_gradients(linear_loss, p, b, 4)
    )(params, batch)
    assert "scan" in str(jaxpr)


def test_under_jit(impl):
    params, batch = mlp_problem()
    f = jax.jit(lambda p, b: impl.accumulate_gradients(mlp_loss, p, b, 2))
    loss, grads = f(params, batch)
    ref_loss, ref_grads = jax.value_and_grad(mlp_loss)(params, batch)
    np.testing.assert_allclose(loss, ref_loss, rtol=1e-5)
    assert_trees_close(grads, ref_grads)


def test_indivisible_batch_raises_value_error(impl):
    params, batch = linear_problem(n=10)
    with pytest.raises(ValueError):
        impl.accumulate_gradients(linear_loss, params, batch, 4)
