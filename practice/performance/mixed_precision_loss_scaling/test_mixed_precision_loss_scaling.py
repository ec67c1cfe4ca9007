"""Tests for Mixed Precision with Loss Scaling."""

import jax
import jax.numpy as jnp
import numpy as np

RNG = np.random.default_rng(0)
X_SMALL = (RNG.uniform(1, 2, size=(8, 4)) * 1e-3).astype(np.float32)
X_BIG = RNG.uniform(50, 100, size=(8, 4)).astype(np.float32)
W = RNG.normal(size=4).astype(np.float32)


def tiny_loss(params, batch):
    """A loss whose gradient entries are about 1.5e-8: below float16's smallest subnormal / 2."""
    return 1e-5 * jnp.mean(batch["x"] @ params["w"])


def linear_loss(params, batch):
    """Gradient = column sums of x (about 600 per entry here)."""
    return jnp.sum(batch["x"] @ params["w"])


def tiny_reference():
    x16 = X_SMALL.astype(np.float16).astype(
        np.float64
    )  # the float16 inputs, exact in float64
    return 1e-5 * x16.mean(axis=0)


def state(impl, scale, good=0):
    return impl.LossScaleState(jnp.float32(scale), jnp.int32(good))


def test_unscaled_float16_gradient_underflows(impl):
    grads, finite = impl.scaled_grads(
        tiny_loss, {"w": jnp.asarray(W)}, {"x": jnp.asarray(X_SMALL)}, 1.0
    )
    assert (tiny_reference() > 1e-8).all()
    np.testing.assert_array_equal(
        grads["w"], np.zeros(4)
    )  # every entry flushed to zero
    assert bool(finite)


def test_scaling_recovers_small_gradients(impl):
    for scale in [2.0**10, 2.0**15]:
        grads, finite = impl.scaled_grads(
            tiny_loss,
            {"w": jnp.asarray(W)},
            {"x": jnp.asarray(X_SMALL)},
            jnp.float32(scale),
        )
        assert grads["w"].dtype == jnp.float32 and bool(finite)
        np.testing.assert_allclose(grads["w"], tiny_reference(), rtol=1e-2)


def test_integer_batch_leaves_are_not_cast(impl):
    def loss(params, batch):
        return 1e-5 * jnp.mean(batch["x"][batch["rows"]] @ params["w"])

    rows = jnp.array([0, 0, 3, 5], jnp.int32)
    grads, _ = impl.scaled_grads(
        loss,
        {"w": jnp.asarray(W)},
        {"x": jnp.asarray(X_SMALL), "rows": rows},
        2.0**15,
    )
    x16 = X_SMALL.astype(np.float16).astype(np.float64)
    np.testing.assert_allclose(
        grads["w"], 1e-5 * x16[[0, 0, 3, 5]].mean(axis=0), rtol=1e-2
    )


def test_overflow_is_reported(impl):
    col_sums = X_BIG.astype(np.float16).astype(np.float64).sum(axis=0)
    params, batch = {"w": jnp.asarray(W)}, {"x": jnp.asarray(X_BIG)}
    grads, finite = impl.scaled_grads(linear_loss, params, batch, 1.0)
    assert bool(finite)
    np.testing.assert_allclose(grads["w"], col_sums, rtol=2e-3)
    _, finite = impl.scaled_grads(linear_loss, params, batch, 2.0**15)
    assert not bool(finite)  # 600 * 32768 > 65504


def test_update_loss_scale_sequence(impl):
    flags = [
        True,
        True,
        True,
        False,
        True,
        False,
        False,
        False,
        False,
        True,
        True,
        True,
    ]
    expected = [
        (8, 1),
        (8, 2),
        (16, 0),
        (8, 0),
        (8, 1),
        (4, 0),
        (2, 0),
        (1, 0),
        (1, 0),
        (1, 1),
        (1, 2),
        (2, 0),
    ]
    s = state(impl, 8.0)
    for flag, (scale, good) in zip(flags, expected):
        s = impl.update_loss_scale(s, jnp.bool_(flag), growth_interval=3)
        assert (float(s.scale), int(s.good_steps)) == (scale, good), (flag, s)
    assert s.scale.dtype == jnp.float32 and s.good_steps.dtype == jnp.int32


def test_update_loss_scale_options_under_jit(impl):
    update = jax.jit(
        impl.update_loss_scale,
        static_argnames=("growth_interval", "factor", "min_scale"),
    )
    s = state(impl, 32.0)
    seen = []
    for flag in [False, False, False, True, True]:
        s = update(
            s, jnp.bool_(flag), growth_interval=2, factor=4.0, min_scale=2.0
        )
        seen.append((float(s.scale), int(s.good_steps)))
    assert seen == [(8, 0), (2, 0), (2, 0), (2, 1), (8, 0)]


def test_train_step_skips_on_overflow(impl):
    params = {"w": jnp.asarray(W)}
    new_params, new_state = impl.train_step(
        linear_loss,
        params,
        state(impl, 2.0**15, 5),
        {"x": jnp.asarray(X_BIG)},
        0.1,
    )
    np.testing.assert_array_equal(new_params["w"], W)
    assert (float(new_state.scale), int(new_state.good_steps)) == (2.0**14, 0)


def test_train_step_applies_sgd_on_finite_gradients(impl):
    x = RNG.normal(size=(16, 4)).astype(np.float32)
    y = RNG.normal(size=16).astype(np.float32)

    def mse(params, batch):
        return jnp.mean((batch["x"] @ params["w"] - batch["y"]) ** 2)

    params = {"w": jnp.asarray(W)}
    batch = {"x": jnp.asarray(x), "y": jnp.asarray(y)}
    new_params, new_state = impl.train_step(
        mse, params, state(impl, 2.0**10), batch, 0.05
    )
    reference = jax.grad(mse)(params, batch)["w"]  # float32 gradient
    np.testing.assert_allclose(
        new_params["w"], W - 0.05 * np.asarray(reference), rtol=1e-3, atol=1e-3
    )
    assert new_params["w"].dtype == jnp.float32
    assert (float(new_state.scale), int(new_state.good_steps)) == (2.0**10, 1)


def test_dynamic_scaling_run_under_jit(impl):
    col_sums = X_BIG.astype(np.float16).astype(np.float64).sum(axis=0)
    assert (
        col_sums.max() * 64 < 65504 < col_sums.min() * 128
    )  # scale 128 overflows, 64 does not
    step = jax.jit(
        impl.train_step,
        static_argnums=(0, 4),
        static_argnames="growth_interval",
    )
    params = {"w": jnp.asarray(W) * 0.01}
    s = state(impl, 256.0)
    history = []
    for _ in range(6):
        before = np.asarray(params["w"])
        params, s = step(
            linear_loss,
            params,
            s,
            {"x": jnp.asarray(X_BIG)},
            1e-4,
            growth_interval=2,
        )
        moved = not np.array_equal(before, np.asarray(params["w"]))
        history.append((float(s.scale), int(s.good_steps), moved))
    assert history == [
        (128, 0, False),
        (64, 0, False),
        (64, 1, True),
        (128, 0, True),
        (64, 0, False),
        (64, 1, True),
    ]
