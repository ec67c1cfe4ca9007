"""Tests for Data-Parallel Step with psum (8 emulated CPU devices)."""

import jax
import jax.numpy as jnp
import numpy as np

from practice._testing import all_primitives


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
    return jax.make_mesh((n,), ("data",))


def jitted(impl):
    """The two functions under jax.jit (loss_fn, mesh and lr static): one compilation per shape."""
    grads = jax.jit(impl.per_device_grads, static_argnums=(0, 4))
    step = jax.jit(impl.dp_train_step, static_argnums=(0, 4, 5))
    return grads, step


grad_on_rows = jax.jit(jax.grad(mlp_loss))


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


def test_new_params_are_replicated(impl):
    params, x, y = make_problem(3)
    new_params, _ = impl.dp_train_step(
        mlp_loss, params, x, y, mesh_of(8), 0.1
    )  # eager call
    for leaf in jax.tree.leaves(new_params):
        assert leaf.sharding.is_fully_replicated
        assert len(leaf.sharding.device_set) == 8


def test_step_uses_shard_map_and_psum(impl):
    params, x, y = make_problem(4)
    jaxpr = jax.make_jaxpr(
        lambda p, a, b: impl.dp_train_step(mlp_loss, p, a, b, mesh_of(8), 0.1)
    )
    names = all_primitives(jaxpr(params, x, y).jaxpr)
    assert "shard_map" in names, names
    assert any(name.startswith("psum") for name in names), names


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
