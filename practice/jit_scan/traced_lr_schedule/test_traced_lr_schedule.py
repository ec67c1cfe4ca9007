"""Tests for Traced Learning Rate Schedule."""

import math

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest
from hypothesis import example, given, strategies as st

CONFIGS = [
    dict(
        init_value=0.0,
        peak_value=1e-3,
        warmup_steps=10,
        decay_steps=100,
        end_value=0.0,
    ),
    dict(
        init_value=1e-4,
        peak_value=3e-3,
        warmup_steps=25,
        decay_steps=60,
        end_value=1e-5,
    ),
    dict(
        init_value=0.5,
        peak_value=1.0,
        warmup_steps=0,
        decay_steps=40,
        end_value=0.1,
    ),
    dict(
        init_value=0.0,
        peak_value=2.0,
        warmup_steps=1,
        decay_steps=2,
        end_value=0.5,
    ),
]


@pytest.mark.requirement(1)
def test_hand_computed_values(impl):
    sched = impl.warmup_cosine_schedule(
        init_value=0.0,
        peak_value=1.0,
        warmup_steps=4,
        decay_steps=8,
        end_value=0.0,
    )
    # warmup 0, 1/4, 2/4, 3/4; then 0.5 (1 + cos(pi k / 4)) for k = 0..4; then end_value
    expected = [
        0.0,
        0.25,
        0.5,
        0.75,
        1.0,
        0.5 * (1 + math.cos(math.pi / 4)),
        0.5,
        0.5 * (1 + math.cos(3 * math.pi / 4)),
        0.0,
        0.0,
        0.0,
    ]
    got = [float(sched(step)) for step in range(11)]
    np.testing.assert_allclose(got, expected, atol=1e-7)
    assert sched(3).dtype == jnp.float32


@pytest.mark.requirement(2, 3)
def test_matches_optax_at_every_step(impl):
    steps = np.arange(0, 130)
    for cfg in CONFIGS:
        sched = impl.warmup_cosine_schedule(**cfg)
        oracle = optax.warmup_cosine_decay_schedule(**cfg)
        expected = np.array([float(oracle(int(s))) for s in steps])
        got = np.array([float(sched(int(s))) for s in steps])
        np.testing.assert_allclose(
            got, expected, rtol=1e-5, atol=1e-8, err_msg=str(cfg)
        )


@pytest.mark.requirement(4)
def test_traced_step_under_jit(impl):
    for cfg in CONFIGS:
        sched = jax.jit(impl.warmup_cosine_schedule(**cfg))
        oracle = optax.warmup_cosine_decay_schedule(**cfg)
        for step in [
            0,
            1,
            5,
            24,
            25,
            26,
            39,
            40,
            41,
            59,
            60,
            99,
            100,
            101,
            1000,
        ]:
            np.testing.assert_allclose(
                sched(jnp.int32(step)),
                oracle(step),
                rtol=1e-5,
                atol=1e-8,
                err_msg=f"{cfg} step={step}",
            )


@pytest.mark.requirement(5)
def test_array_of_steps(impl):
    cfg = CONFIGS[1]
    steps = jnp.arange(0, 80, dtype=jnp.int32).reshape(8, 10)
    out = impl.warmup_cosine_schedule(**cfg)(steps)
    assert out.shape == (8, 10) and out.dtype == jnp.float32
    oracle = optax.warmup_cosine_decay_schedule(**cfg)
    np.testing.assert_allclose(out, oracle(steps), rtol=1e-5, atol=1e-8)


@pytest.mark.requirement(6)
def test_inside_scan_with_a_traced_counter(impl):
    cfg = CONFIGS[0]
    sched = impl.warmup_cosine_schedule(**cfg)

    def body(step, _):
        return step + 1, sched(step)

    _, lrs = jax.lax.scan(body, jnp.int32(0), None, length=120)
    oracle = optax.warmup_cosine_decay_schedule(**cfg)
    np.testing.assert_allclose(
        lrs, oracle(jnp.arange(120)), rtol=1e-5, atol=1e-8
    )
    assert float(lrs[10]) == pytest.approx(
        1e-3, rel=1e-6
    )  # the peak, right after warmup
    assert float(lrs[-1]) == 0.0


@pytest.mark.requirement(7)
def test_invalid_hyperparameters(impl):
    with pytest.raises(ValueError):
        impl.warmup_cosine_schedule(0.0, 1.0, warmup_steps=10, decay_steps=10)
    with pytest.raises(ValueError):
        impl.warmup_cosine_schedule(0.0, 1.0, warmup_steps=20, decay_steps=10)
    with pytest.raises(ValueError):
        impl.warmup_cosine_schedule(0.0, 1.0, warmup_steps=-1, decay_steps=10)


@st.composite
def configs(draw):
    """Hyperparameters of a valid schedule, warmup 0 included."""
    warmup = draw(st.integers(0, 6))
    return dict(
        init_value=draw(st.sampled_from([0.0, 1e-4, 0.5])),
        peak_value=draw(st.sampled_from([1e-3, 1.0, 3.0])),
        warmup_steps=warmup,
        decay_steps=warmup + draw(st.integers(1, 8)),
        end_value=draw(st.sampled_from([0.0, 1e-5, 0.1])),
    )


@pytest.mark.requirement(2, 3, 4, 5)
@given(cfg=configs(), shape=st.sampled_from([(-1,), (1, -1), (-1, 1)]))
@example(cfg=CONFIGS[2], shape=(-1,))
@example(cfg=CONFIGS[3], shape=(1, -1))
def test_property_matches_optax(impl, cfg, shape):
    steps = np.arange(cfg["decay_steps"] + 4, dtype=np.int32).reshape(shape)
    expected = optax.warmup_cosine_decay_schedule(**cfg)(steps)
    sched = impl.warmup_cosine_schedule(**cfg)
    for out in [sched(steps), jax.jit(sched)(jnp.asarray(steps))]:
        assert out.shape == steps.shape and out.dtype == jnp.float32
        np.testing.assert_allclose(  # optax rounds to float32 of the peak
            out,
            expected,
            rtol=1e-5,
            atol=1e-6 * cfg["peak_value"],
            err_msg=str(cfg),
        )
    assert float(sched(cfg["warmup_steps"])) == pytest.approx(
        cfg["peak_value"], rel=1e-5, abs=1e-7
    )
    assert sched(jnp.int32(3)).shape == ()


@pytest.mark.requirement(2)
@given(cfg=configs())
@example(cfg=CONFIGS[1])
@example(cfg=CONFIGS[2])  # no warmup
def test_end_value_defaults_to_zero(impl, cfg):
    """Without end_value the schedule is optax's default one: it decays to 0."""
    cfg = {k: v for k, v in cfg.items() if k != "end_value"}
    steps = np.arange(64, dtype=np.int32)  # past the end of every config here
    expected = optax.warmup_cosine_decay_schedule(**cfg)(steps)
    out = impl.warmup_cosine_schedule(**cfg)(steps)
    np.testing.assert_allclose(
        out, expected, rtol=1e-5, atol=1e-6 * cfg["peak_value"]
    )
    np.testing.assert_allclose(out[-3:], 0.0, atol=1e-6 * cfg["peak_value"])


@pytest.mark.requirement(8)
@given(cfg=configs(), steps=st.lists(st.integers(-(2**31), -1), min_size=1))
@example(cfg=CONFIGS[0], steps=[-1])
@example(cfg=CONFIGS[2], steps=[-1, -3])  # no warmup: init_value, not peak
@example(cfg=CONFIGS[3], steps=[-(2**31)])
def test_negative_steps_give_init_value(impl, cfg, steps):
    steps = np.int32(steps)
    expected = optax.warmup_cosine_decay_schedule(**cfg)(steps)
    sched = impl.warmup_cosine_schedule(**cfg)
    for out in [sched(steps), jax.jit(sched)(jnp.asarray(steps))]:
        assert out.dtype == jnp.float32
        np.testing.assert_allclose(  # optax rounds init_value on its way
            out,
            expected,
            rtol=1e-5,
            atol=1e-6 * cfg["peak_value"],
            err_msg=str(cfg),
        )
        np.testing.assert_array_equal(out, np.float32(cfg["init_value"]))
