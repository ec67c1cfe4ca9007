"""Tests for Gradient Accumulation with Scan."""

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

from practice._testing import (
    assert_trees_close as shared_assert_trees_close,
    compiled_lines,
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


@pytest.mark.requirement(1)
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


@pytest.mark.requirement(2)
def test_mlp_matches_full_batch_value_and_grad(impl):
    params, batch = mlp_problem()
    loss, grads = impl.accumulate_gradients(mlp_loss, params, batch, 3)
    ref_loss, ref_grads = jax.value_and_grad(mlp_loss)(params, batch)
    np.testing.assert_allclose(loss, ref_loss, rtol=1e-5)
    assert_trees_close(grads, ref_grads)


@pytest.mark.requirement(3)
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


@pytest.mark.requirement(4)
def test_micro_batches_are_contiguous_slices(impl):
    # The loss of each micro-batch is the first y it sees; the mean over micro-batches then
    # reveals which examples opened each slice: y[0], y[4], y[8] for B=12, k=3.
    params = {"w": jnp.array(0.0)}
    batch = {"y": jnp.arange(12.0)}
    first_y = lambda p, b: b["y"][0] + 0.0 * p["w"]
    loss, _ = impl.accumulate_gradients(first_y, params, batch, 3)
    np.testing.assert_allclose(loss, (0.0 + 4.0 + 8.0) / 3)


@pytest.mark.requirement(5)
def test_uses_scan(impl):
    params, batch = linear_problem()
    jaxpr = jax.make_jaxpr(
        lambda p, b: impl.accumulate_gradients(linear_loss, p, b, 4)
    )(params, batch)
    assert "scan" in str(jaxpr)


@pytest.mark.requirement(2)
def test_under_jit(impl):
    params, batch = mlp_problem()
    f = jax.jit(lambda p, b: impl.accumulate_gradients(mlp_loss, p, b, 2))
    loss, grads = f(params, batch)
    ref_loss, ref_grads = jax.value_and_grad(mlp_loss)(params, batch)
    np.testing.assert_allclose(loss, ref_loss, rtol=1e-5)
    assert_trees_close(grads, ref_grads)


@pytest.mark.requirement(6)
def test_indivisible_batch_raises_value_error(impl):
    params, batch = linear_problem(n=10)
    with pytest.raises(ValueError):
        impl.accumulate_gradients(linear_loss, params, batch, 4)


@pytest.mark.requirement(6)
@pytest.mark.parametrize("k", [0, -1, -2, -12, 5, 13])
def test_k_below_one_or_not_dividing_raises_value_error(impl, k):
    """k = 0 (B % 0), negative k (-2 divides 12) and k not dividing B = 12:
    ValueError, before loss_fn runs."""
    params, batch = linear_problem(n=12)
    calls = []

    def loss(params, micro):
        calls.append(micro)
        return linear_loss(params, micro)

    with pytest.raises(ValueError):
        impl.accumulate_gradients(loss, params, batch, k)
    assert not calls


@pytest.mark.requirement(5)
def test_compiled_program_does_not_grow_with_k(impl):
    """Checked on what XLA compiles, not only on the jaxpr."""
    params, batch = linear_problem(n=16)
    lines = [
        compiled_lines(
            lambda p, b, k=k: impl.accumulate_gradients(linear_loss, p, b, k),
            params,
            batch,
        )
        for k in (2, 8)
    ]
    assert lines[0] == lines[1], (
        f"the compiled program grows with k: {lines} lines for k = 2, 8"
    )


@pytest.mark.requirement(5)
def test_program_does_not_grow_with_k(impl):
    params, batch = linear_problem(n=16)

    def program_lines(k):
        jaxpr = jax.make_jaxpr(
            lambda p, b: impl.accumulate_gradients(linear_loss, p, b, k)
        )(params, batch)
        return len(str(jaxpr).splitlines())

    assert program_lines(2) == program_lines(8), (
        "the traced program grows with the number of micro-batches"
    )


def weighted_loss(params, batch):
    """Weighted squared error; batch: x (n, 3), y (n,), weight (n, 1)."""
    r = batch["x"] @ params["w"] + params["b"] - batch["y"]
    return jnp.mean(batch["weight"][:, 0] * r**2)


# (B, k): k = 1, k = B, sizes that are not powers of two
SPLITS = [(1, 1), (5, 5), (6, 3), (6, 2), (7, 1), (12, 4)]


@st.composite
def problems(draw):
    """(B, k), params and a batch with leaves of rank 1, 2 and 2 (size 1)."""
    size, k = draw(st.sampled_from(SPLITS))
    # no subnormals: XLA on CPU flushes them to zero (a weight of 1e-44 is 0)
    values = st.floats(-10, 10, width=32, allow_subnormal=False)
    arrays = [
        draw(hnp.arrays(np.float32, shape, elements=values))
        for shape in [(size, 3), (size,), (size, 1), (3,)]
    ]
    x, y, weight, w = arrays
    batch = {"x": x, "y": y, "weight": np.abs(weight)}
    return k, {"w": w, "b": np.float32(0.5)}, batch


@pytest.mark.requirement(1, 3)
@given(problem=problems())
def test_property_matches_float64_full_batch(impl, problem):
    k, params, batch = problem
    seen = []

    def recording_loss(params, micro):
        seen.append({name: leaf.shape for name, leaf in micro.items()})
        return weighted_loss(params, micro)

    loss, grads = impl.accumulate_gradients(recording_loss, params, batch, k)
    m = len(batch["y"]) // k
    assert seen and all(
        s == {"x": (m, 3), "y": (m,), "weight": (m, 1)} for s in seen
    )
    x, y, wt = (np.asarray(batch[n], np.float64) for n in ["x", "y", "weight"])
    r = x @ np.asarray(params["w"], np.float64) + 0.5 - y
    wr = wt[:, 0] * r
    scale = 1 + np.abs(wr).max() * (1 + np.abs(x).max())
    np.testing.assert_allclose(loss, np.mean(wr * r), rtol=1e-4)
    np.testing.assert_allclose(
        grads["w"], 2 * x.T @ wr / len(y), rtol=1e-4, atol=1e-5 * scale
    )
    np.testing.assert_allclose(
        grads["b"], 2 * np.mean(wr), rtol=1e-4, atol=1e-5 * scale
    )
