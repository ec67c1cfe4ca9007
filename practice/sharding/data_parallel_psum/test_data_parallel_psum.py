"""Tests for Data-Parallel Step with psum (8 emulated CPU devices)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import example, given, strategies as st

from practice._testing import all_primitives, shard_map_operands


def mlp_loss(params, x, y):
    """Mean squared error of a tiny MLP. x: (m, 3), y: (m,) -> scalar."""
    pred = jnp.tanh(x @ params["w1"] + params["b1"]) @ params["w2"]
    return jnp.mean((pred - y) ** 2)


def make_problem(seed=0, rows=16):
    rng = np.random.default_rng(seed)
    params = {
        "w1": rng.normal(size=(3, 4)),
        "b1": rng.normal(size=(4,)) * 0.1,
        "w2": rng.normal(size=(4,)),
    }
    params = jax.tree.map(lambda a: jnp.asarray(a, jnp.float32), params)
    x = jnp.asarray(rng.normal(size=(rows, 3)), jnp.float32)
    y = jnp.asarray(rng.normal(size=(rows,)), jnp.float32)
    return params, x, y


def mesh_of(n):
    """A 1-D mesh of the first n devices, any n from 1 to 8."""
    return jax.make_mesh((n,), ("data",), devices=jax.devices()[:n])


def jitted(impl):
    """The two functions under jax.jit (loss_fn, mesh and lr static): one compilation per shape."""
    grads = jax.jit(impl.per_device_grads, static_argnums=(0, 4))
    step = jax.jit(impl.dp_train_step, static_argnums=(0, 4, 5))
    return grads, step


grad_on_rows = jax.jit(jax.grad(mlp_loss))


@pytest.mark.requirement(1)
def test_per_device_grads_are_local(impl):
    params, x, y = make_problem()
    per_device_grads, _ = jitted(impl)
    for n in [8, 4, 2]:
        grads = per_device_grads(mlp_loss, params, x, y, mesh_of(n))
        m = x.shape[0] // n
        for i in range(n):
            expected = grad_on_rows(
                params, x[i * m : (i + 1) * m], y[i * m : (i + 1) * m]
            )
            for name in params:
                assert grads[name].shape == (n,) + params[name].shape
                np.testing.assert_allclose(
                    np.asarray(grads[name])[i],
                    expected[name],
                    rtol=1e-5,
                    atol=1e-6,
                    err_msg=f"n={n} device={i} leaf={name}",
                )


@pytest.mark.requirement(2)
def test_mean_of_local_grads_is_the_global_grad(impl):
    params, x, y = make_problem(1)
    per_device_grads, _ = jitted(impl)
    grads = per_device_grads(mlp_loss, params, x, y, mesh_of(8))
    full = jax.grad(mlp_loss)(params, x, y)
    for name in params:
        np.testing.assert_allclose(
            np.asarray(grads[name]).mean(axis=0),
            full[name],
            rtol=1e-5,
            atol=1e-6,
        )


@pytest.mark.requirement(3)
def test_step_equals_single_device_sgd(impl):
    params, x, y = make_problem(2)
    full_loss, full_grads = jax.value_and_grad(mlp_loss)(params, x, y)
    _, dp_train_step = jitted(impl)
    for n in [8, 4, 2]:
        new_params, loss = dp_train_step(
            mlp_loss, params, x, y, mesh_of(n), 0.1
        )
        np.testing.assert_allclose(loss, full_loss, rtol=1e-5)
        assert loss.shape == () and loss.dtype == jnp.float32
        for name in params:
            np.testing.assert_allclose(
                new_params[name],
                params[name] - 0.1 * full_grads[name],
                rtol=1e-5,
                atol=1e-6,
                err_msg=f"n={n} leaf={name}",
            )


@pytest.mark.requirement(4)
def test_new_params_are_replicated(impl):
    params, x, y = make_problem(3)
    new_params, _ = impl.dp_train_step(
        mlp_loss, params, x, y, mesh_of(8), 0.1
    )  # eager call
    for leaf in jax.tree.leaves(new_params):
        assert leaf.sharding.is_fully_replicated
        assert len(leaf.sharding.device_set) == 8


@pytest.mark.requirement(5)
def test_step_uses_shard_map_and_psum(impl):
    params, x, y = make_problem(4)
    jaxpr = jax.make_jaxpr(
        lambda p, a, b: impl.dp_train_step(mlp_loss, p, a, b, mesh_of(8), 0.1)
    )
    names = all_primitives(jaxpr(params, x, y).jaxpr)
    assert "shard_map" in names, names
    assert any(name.startswith("psum") for name in names), names


@pytest.mark.requirement(6)
def test_jitted_training_follows_single_device_sgd(impl):
    params, x, y = make_problem(5, rows=32)
    _, step = jitted(impl)
    mesh = mesh_of(8)
    reference = params
    losses = []
    for _ in range(25):
        params, loss = step(mlp_loss, params, x, y, mesh, 0.2)
        grads = jax.grad(mlp_loss)(reference, x, y)
        reference = jax.tree.map(lambda p, g: p - 0.2 * g, reference, grads)
        losses.append(float(loss))
    for name in params:
        np.testing.assert_allclose(
            params[name], reference[name], rtol=1e-4, atol=1e-5
        )
    assert losses[-1] < 0.8 * losses[0]


def np_mlp_grad(params, x, y):
    """float64 NumPy oracle: loss and gradient of mlp_loss, by hand."""
    p = {k: np.asarray(v, np.float64) for k, v in params.items()}
    x, y = np.asarray(x, np.float64), np.asarray(y, np.float64)
    h = np.tanh(x @ p["w1"] + p["b1"])
    r = h @ p["w2"] - y
    d_pred = 2 * r / len(y)
    d_pre = np.outer(d_pred, p["w2"]) * (1 - h**2)
    grads = {"w1": x.T @ d_pre, "b1": d_pre.sum(0), "w2": h.T @ d_pred}
    return np.mean(r**2), grads


@pytest.mark.requirement(1, 2, 3)
@given(
    n=st.integers(1, 8),
    rows_per_device=st.sampled_from([1, 3]),
    seed=st.integers(0, 2**16),
    lr=st.sampled_from([0.05, 0.5]),
)
@example(n=8, rows_per_device=1, seed=0, lr=0.5)
@example(n=3, rows_per_device=3, seed=1, lr=0.05)
def test_against_float64_oracle(impl, n, rows_per_device, seed, lr):
    """Meshes of every size from 1 to 8 devices, one or three rows each."""
    params, x, y = make_problem(seed, rows=n * rows_per_device)
    per_device_grads, dp_train_step = jitted(impl)
    grads = per_device_grads(mlp_loss, params, x, y, mesh_of(n))
    m = rows_per_device
    for i in range(n):
        _, want = np_mlp_grad(
            params, x[i * m : (i + 1) * m], y[i * m : (i + 1) * m]
        )
        for name in params:
            np.testing.assert_allclose(
                np.asarray(grads[name])[i], want[name], rtol=1e-4, atol=1e-5
            )
    full_loss, full = np_mlp_grad(params, x, y)
    new_params, loss = dp_train_step(mlp_loss, params, x, y, mesh_of(n), lr)
    # atol: a float32 mean of small squared residuals (a loss near 4e-5 moved
    # by 1.1e-9 against float64)
    np.testing.assert_allclose(loss, full_loss, rtol=1e-5, atol=1e-8)
    for name in params:
        np.testing.assert_allclose(
            new_params[name],
            np.asarray(params[name], np.float64) - lr * full[name],
            rtol=1e-4,
            atol=1e-5,
        )


@pytest.mark.requirement(4)
def test_per_device_grads_stay_on_their_devices(impl):
    """No collective: device i holds out[i] and nothing else."""
    params, x, y = make_problem(6)
    grads = impl.per_device_grads(mlp_loss, params, x, y, mesh_of(8))
    for leaf in jax.tree.leaves(grads):
        assert len(leaf.sharding.device_set) == 8
        assert leaf.sharding.shard_shape(leaf.shape) == (1,) + leaf.shape[1:]


@pytest.mark.requirement(7)
@pytest.mark.parametrize("n", [2, 4, 8])
def test_each_device_receives_only_its_rows(impl, n):
    """Inside the shard_map x and y are (16 / n, ...) blocks: a batch passed
    replicated and sliced there with axis_index gives the same step."""
    params, x, y = make_problem(5)
    mesh = mesh_of(n)
    rows = x.shape[0] // n
    for f in (
        lambda p, a, b: impl.per_device_grads(mlp_loss, p, a, b, mesh),
        lambda p, a, b: impl.dp_train_step(mlp_loss, p, a, b, mesh, 0.1),
    ):
        found = shard_map_operands(jax.make_jaxpr(f)(params, x, y).jaxpr)
        assert found, "no shard_map"
        for shapes in found:
            assert (rows, 3) in shapes and (rows,) in shapes, shapes
            assert (x.shape[0], 3) not in shapes, shapes
