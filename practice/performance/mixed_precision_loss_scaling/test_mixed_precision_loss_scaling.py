"""Tests for Mixed Precision with Loss Scaling."""

import hypothesis.extra.numpy as hnp
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import example, given, strategies as st

DTYPES = {
    "float32": jnp.float32,
    "bfloat16": jnp.bfloat16,
    "float16": jnp.float16,
}

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


def tiny_reference(x=X_SMALL):
    """float64 oracle: the gradient of tiny_loss at the float16-rounded inputs."""
    x16 = np.asarray(x, np.float32).astype(np.float16).astype(np.float64)
    return 1e-5 * x16.mean(axis=0)


def mean_f32_loss(params, batch):
    """float16 products, reduced in float32 (as in guide/profiling.md): the
    float32 scale reaches float16 only as S * 1e-7 / n per row."""
    rows = (batch["x"] @ params["w"]).astype(jnp.float32)
    return 1e-7 * jnp.mean(rows)


def batch_of(draw_x, dtype):
    """A float batch leaf of the given dtype (bfloat16 cast from float32)."""
    return {"x": jnp.asarray(draw_x, DTYPES[dtype])}


def state(impl, scale, good=0):
    return impl.LossScaleState(jnp.float32(scale), jnp.int32(good))


@pytest.mark.requirement(1)
@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_unscaled_float16_gradient_underflows(impl, dtype):
    grads, finite = impl.scaled_grads(
        tiny_loss, {"w": jnp.asarray(W)}, batch_of(X_SMALL, dtype), 1.0
    )
    assert (tiny_reference() > 1e-8).all()
    np.testing.assert_array_equal(
        grads["w"], np.zeros(4)
    )  # every entry flushed to zero
    assert bool(finite)


@pytest.mark.requirement(2)
@given(
    x=hnp.arrays(np.float32, (8, 4), elements=st.floats(1, 2, width=32)),
    dtype=st.sampled_from(sorted(DTYPES)),
    scale=st.sampled_from([2.0**10, 2.0**13, 2.0**15, 3e4]),
    as_array=st.booleans(),
)
@example(x=X_SMALL * 1e3, dtype="float32", scale=2.0**15, as_array=True)
def test_scaling_recovers_small_gradients(impl, x, dtype, scale, as_array):
    x = x * np.float32(1e-3)
    grads, finite = impl.scaled_grads(
        tiny_loss,
        {"w": jnp.asarray(W)},
        batch_of(x, dtype),
        jnp.float32(scale) if as_array else scale,
    )
    assert grads["w"].dtype == jnp.float32 and grads["w"].shape == W.shape
    assert bool(finite)
    x_in = np.asarray(jnp.asarray(x, DTYPES[dtype]).astype(jnp.float32))
    np.testing.assert_allclose(grads["w"], tiny_reference(x_in), rtol=1e-2)


@pytest.mark.requirement(5)
@given(
    power=st.sampled_from([14, 15, 16, 17, 20, 24, 30]),
    n=st.sampled_from([1, 3, 8]),
    d=st.sampled_from([1, 5]),
    dtype=st.sampled_from(sorted(DTYPES)),
)
@example(power=16, n=8, d=5, dtype="float32")
def test_scale_above_float16_max(impl, power, n, d, dtype):
    """The scale stays float32: 2**16 and above do not overflow."""
    x = np.random.default_rng(n * d).uniform(1, 2, size=(n, d))
    batch = batch_of(x.astype(np.float32), dtype)
    w = jnp.ones(d, jnp.float32)
    grads, finite = impl.scaled_grads(
        mean_f32_loss, {"w": w}, batch, jnp.float32(2.0**power)
    )
    assert bool(finite), f"S = 2**{power} overflowed"
    x16 = np.asarray(batch["x"].astype(jnp.float16), np.float64)
    np.testing.assert_allclose(grads["w"], 1e-7 * x16.mean(axis=0), rtol=1e-2)


@pytest.mark.requirement(3)
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


@pytest.mark.requirement(4)
def test_overflow_is_reported(impl):
    col_sums = X_BIG.astype(np.float16).astype(np.float64).sum(axis=0)
    params, batch = {"w": jnp.asarray(W)}, {"x": jnp.asarray(X_BIG)}
    grads, finite = impl.scaled_grads(linear_loss, params, batch, 1.0)
    assert bool(finite)
    np.testing.assert_allclose(grads["w"], col_sums, rtol=2e-3)
    _, finite = impl.scaled_grads(linear_loss, params, batch, 2.0**15)
    assert not bool(finite)  # 600 * 32768 > 65504


@pytest.mark.requirement(6, 7, 8)
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


@pytest.mark.requirement(6, 7, 8)
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


@pytest.mark.requirement(9)
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


@pytest.mark.requirement(10)
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


@pytest.mark.requirement(11)
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


@pytest.mark.requirement(4)
@given(
    row=st.integers(0, 7),
    col=st.integers(0, 3),
    bad=st.sampled_from([np.nan, np.inf, -np.inf]),
)
@example(row=0, col=0, bad=np.nan)
def test_non_finite_gradient_is_reported(impl, row, col, bad):
    """One inf or nan in the batch makes a gradient entry non-finite."""
    x = X_SMALL.copy()
    x[row, col] = bad
    grads, finite = impl.scaled_grads(
        tiny_loss, {"w": jnp.asarray(W)}, {"x": jnp.asarray(x)}, 2.0**10
    )
    assert not np.isfinite(np.asarray(grads["w"])).all()
    assert not bool(finite)


def scale_oracle(scale, flags, growth_interval, factor, min_scale):
    """Brute force, in plain Python: the (scale, good_steps) after each flag."""
    good, seen = 0, []
    for flag in flags:
        if not flag:
            scale, good = max(scale / factor, min_scale), 0
        elif good + 1 >= growth_interval:
            scale, good = scale * factor, 0
        else:
            good += 1
        seen.append((scale, good))
    return seen


@pytest.mark.requirement(6, 7, 8)
@given(
    flags=st.lists(st.booleans(), min_size=1, max_size=10),
    growth_interval=st.sampled_from([1, 2, 3]),
    factor=st.sampled_from([2.0, 4.0]),
    min_scale=st.sampled_from([0.5, 1.0, 4.0]),
    # powers of two and not (odd scales halve to fractions), all exact in
    # float32 after these steps
    start=st.sampled_from([1.0, 3.0, 6.5, 8.0, 1000.0, 2.0**15]),
)
@example(
    flags=[True] * 3, growth_interval=1, factor=2.0, min_scale=1.0, start=1.0
)
@example(  # 3 / 2 = 1.5 above min_scale: not floored to 1
    flags=[False, False],
    growth_interval=2,
    factor=2.0,
    min_scale=0.5,
    start=3.0,
)
def test_update_loss_scale_matches_oracle(
    impl, flags, growth_interval, factor, min_scale, start
):
    update = jax.jit(
        impl.update_loss_scale,
        static_argnames=("growth_interval", "factor", "min_scale"),
    )
    s, seen = state(impl, start), []
    for flag in flags:
        s = update(
            s,
            jnp.bool_(flag),
            growth_interval=growth_interval,
            factor=factor,
            min_scale=min_scale,
        )
        assert s.scale.dtype == jnp.float32
        assert s.good_steps.dtype == jnp.int32
        seen.append((float(s.scale), int(s.good_steps)))
    assert seen == scale_oracle(
        start, flags, growth_interval, factor, min_scale
    )


@pytest.mark.requirement(10)
def test_master_weights_keep_small_updates(impl):
    """lr * grad is far below float16's resolution at w = 1: the float32
    master weights still move by it."""
    x = X_SMALL * 1e3  # gradient of tiny_loss: 1e-5 * mean(x16)
    params = {"w": jnp.asarray(W)}  # not representable in float16
    new_params, _ = impl.train_step(
        tiny_loss, params, state(impl, 2.0**15), {"x": jnp.asarray(x)}, 1.0
    )
    x16 = x.astype(np.float16).astype(np.float64)
    oracle = W.astype(np.float64) - 1e-5 * x16.mean(0)
    assert new_params["w"].dtype == jnp.float32
    np.testing.assert_allclose(new_params["w"], oracle, rtol=0, atol=3e-7)


@pytest.mark.requirement(1, 3)
@pytest.mark.parametrize("dtype", sorted(DTYPES))
def test_loss_fn_sees_float16(impl, dtype):
    """loss_fn receives float16 params and float16 floating batch leaves
    (whatever their dtype before); integer leaves keep theirs."""
    seen = []

    def loss(params, batch):
        seen.append({k: v.dtype for k, v in {**params, **batch}.items()})
        return tiny_loss(params, batch)

    batch = {
        **batch_of(X_SMALL, dtype),
        "rows": jnp.arange(3, dtype=jnp.int32),
    }
    impl.scaled_grads(loss, {"w": jnp.asarray(W)}, batch, 2.0**10)
    assert seen and seen[0] == {
        "w": jnp.float16,
        "x": jnp.float16,
        "rows": jnp.int32,
    }


def sq_loss(params, batch):
    """float16 residuals, float32 mean of their squares."""
    r = (batch["x"] @ params["w"]).astype(jnp.float32)
    return 0.5 * jnp.mean(r**2)


@pytest.mark.requirement(12)
def test_keeps_training_across_scale_growth(impl):
    """Scale 2**15 grows to 2**16 and 2**17 (beyond float16's 65504): every
    step stays finite and follows a float64 SGD oracle."""
    rng = np.random.default_rng(1)
    x = rng.uniform(0.5, 1, size=(8, 4)).astype(np.float32)
    w0 = (rng.uniform(0.5, 1, size=4) * 1e-2).astype(np.float32)
    step = jax.jit(
        impl.train_step,
        static_argnums=(0, 4),
        static_argnames="growth_interval",
    )
    params, s = {"w": jnp.asarray(w0)}, state(impl, 2.0**15, 1)
    x16 = x.astype(np.float16).astype(np.float64)
    w, history = w0.astype(np.float64), []
    for _ in range(4):
        params, s = step(
            sq_loss, params, s, {"x": jnp.asarray(x)}, 0.1, growth_interval=2
        )
        w = w - 0.1 * x16.T @ (x16 @ w) / len(x16)  # float64 SGD oracle
        history.append((float(s.scale), int(s.good_steps)))
        np.testing.assert_allclose(params["w"], w, rtol=1e-2)
    assert history == [(2**16, 0), (2**16, 1), (2**17, 0), (2**17, 1)]


def three_leaf_loss(params, batch):
    """w's gradient comes from x, b's (a tuple's leaf) from z; y adds to the loss and to no
    gradient (its derivative with respect to the params is 0)."""
    w, (b,) = params["w"], params["b"]
    return 1e-3 * (
        jnp.sum(batch["x"] @ w) + jnp.sum(b * batch["z"])
    ) + jnp.sum(batch["y"])


@pytest.mark.requirement(4)
@given(
    leaf=st.sampled_from(["x", "z", "y", None]),
    index=st.integers(0, 3),
    bad=st.sampled_from([np.nan, np.inf, -np.inf]),
    scale=st.sampled_from([2.0**10, 2.0**15]),
)
@example(leaf="z", index=3, bad=np.inf, scale=2.0**10)  # the last leaf
@example(leaf="y", index=0, bad=np.nan, scale=2.0**10)  # in the loss only
@example(leaf=None, index=0, bad=np.nan, scale=2.0**15)
def test_finite_flag_over_every_gradient_leaf(impl, leaf, index, bad, scale):
    """A non-finite value in any gradient leaf (the first or the last) gives False; one that
    reaches the loss but no gradient (y) gives True, as does no bad value at all."""
    batch = {
        "x": np.ones((4, 4), np.float32),
        "z": np.full(4, 0.5, np.float32),
        "y": np.full(4, 2.0, np.float32),
    }
    if leaf is not None:
        batch[leaf].reshape(-1)[index] = bad
    params = {"w": jnp.asarray(W), "b": (jnp.ones(4),)}
    grads, finite = impl.scaled_grads(
        three_leaf_loss, params, jax.tree.map(jnp.asarray, batch), scale
    )
    expected = leaf in (None, "y")
    everything = np.concatenate([np.ravel(g) for g in jax.tree.leaves(grads)])
    assert np.isfinite(everything).all() == expected
    assert bool(finite) == expected


@pytest.mark.requirement(8, 11)
def test_arguments_by_their_names(impl):
    """Every argument may be given by the name the signature gives it (the
    options after * only so)."""
    s = impl.update_loss_scale(
        state=state(impl, 8.0, 1), finite=jnp.bool_(True), growth_interval=2
    )
    assert (float(s.scale), int(s.good_steps)) == (16.0, 0)
    params = {"w": jnp.asarray(W)}
    new, s = impl.train_step(
        loss_fn=linear_loss,
        params=params,
        state=state(impl, 2.0**10),
        batch={"x": jnp.asarray(X_SMALL)},
        lr=0.0,
        growth_interval=1,
    )
    np.testing.assert_array_equal(new["w"], params["w"])
    assert (float(s.scale), int(s.good_steps)) == (2.0**11, 0)


@pytest.mark.requirement(7, 11)
def test_default_growth_interval_is_2000(impl):
    """Without growth_interval both functions grow the scale on the 2000th
    finite step in a row, the signature's default: not on the 1999th."""
    s = impl.update_loss_scale(state(impl, 8.0, 1998), jnp.bool_(True))
    assert (float(s.scale), int(s.good_steps)) == (8.0, 1999)
    s = impl.update_loss_scale(s, jnp.bool_(True))
    assert (float(s.scale), int(s.good_steps)) == (16.0, 0)
    params, batch = {"w": jnp.asarray(W)}, {"x": jnp.asarray(X_SMALL)}
    for good, expected in [(1998, (2.0**10, 1999)), (1999, (2.0**11, 0))]:
        _, s = impl.train_step(
            linear_loss, params, state(impl, 2.0**10, good), batch, 0.1
        )
        assert (float(s.scale), int(s.good_steps)) == expected
