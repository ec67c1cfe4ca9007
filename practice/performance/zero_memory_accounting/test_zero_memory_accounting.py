"""Tests for Account for ZeRO Memory by Stage. Oracle: Figure 1 of Rajbhandari et al. (2020)."""

from fractions import Fraction

import pytest
from hypothesis import example, given, strategies as st

PSI, N_D = 7.5e9, 64  # the paper's example: 7.5B parameters, 64-way DP
FIGURE_1 = {
    0: 120.0,
    1: 31.4,
    2: 16.6,
    3: 1.9,
}  # GB per device, as printed in Figure 1


@pytest.mark.requirement(1)
def test_figure_1_of_the_paper(impl):
    for stage, printed in FIGURE_1.items():
        gb = impl.zero_memory_gb(PSI, N_D, stage)
        assert isinstance(gb, float)
        assert abs(gb - printed) <= 0.05 + 1e-9, (
            stage,
            gb,
        )  # printed with one decimal


@pytest.mark.requirement(1)
def test_exact_values_by_hand(impl):
    # baseline 16 * 7.5 = 120; stage 1: 4 * 7.5 + 12 * 7.5 / 64; stage 2: 2 * 7.5 + 14 * 7.5 / 64;
    # stage 3: 16 * 7.5 / 64 (all in GB)
    expected = {0: 120.0, 1: 31.40625, 2: 16.640625, 3: 1.875}
    for stage, gb in expected.items():
        assert impl.zero_memory_gb(PSI, N_D, stage) == pytest.approx(
            gb, rel=1e-12
        )


@pytest.mark.requirement(2, 3)
def test_breakdown_by_state(impl):
    b = impl.zero_model_state_bytes(PSI, N_D, 2)
    assert set(b) == {"params", "grads", "optimizer", "total"}
    assert b["params"] == pytest.approx(15e9)  # not partitioned in stage 2
    assert b["grads"] == pytest.approx(15e9 / 64)
    assert b["optimizer"] == pytest.approx(90e9 / 64)
    assert b["total"] == pytest.approx(
        b["params"] + b["grads"] + b["optimizer"]
    )
    b1 = impl.zero_model_state_bytes(PSI, N_D, 1)
    assert (b1["params"], b1["grads"]) == pytest.approx((15e9, 15e9))
    b3 = impl.zero_model_state_bytes(PSI, N_D, 3)
    assert b3["params"] == pytest.approx(15e9 / 64)
    assert all(isinstance(v, float) for v in b3.values())


# Section 5 of the paper: stage 1 (P_os) partitions the optimizer state, stage 2 (P_os+g) also the
# gradients, stage 3 (P_os+g+p) also the parameters.
PARTITIONED = {
    0: set(),
    1: {"optimizer"},
    2: {"optimizer", "grads"},
    3: {"optimizer", "grads", "params"},
}


@pytest.mark.requirement(2)
def test_each_stage_partitions_its_states(impl):
    # distinct byte counts per state, so that no two states can be confused
    sizes = {"params": 4, "grads": 2, "optimizer": 12}
    kwargs = {"param_bytes": 4, "grad_bytes": 2, "optimizer_bytes": 12}
    for stage, partitioned in PARTITIONED.items():
        for n_d in [1, 8, 64]:
            b = impl.zero_model_state_bytes(1e9, n_d, stage, **kwargs)
            for state, size in sizes.items():
                expected = size * 1e9 / (n_d if state in partitioned else 1)
                assert b[state] == pytest.approx(expected, rel=1e-12), (
                    stage,
                    n_d,
                    state,
                )
            total = sum(
                size * 1e9 / (n_d if st in partitioned else 1)
                for st, size in sizes.items()
            )
            assert impl.zero_memory_gb(
                1e9, n_d, stage, **kwargs
            ) == pytest.approx(total / 1e9)


@pytest.mark.requirement(5)
def test_one_device_and_monotonicity(impl):
    for stage in range(4):
        assert impl.zero_memory_gb(1e9, 1, stage) == pytest.approx(16.0)
    for n_d in [2, 8, 1024]:
        values = [impl.zero_memory_gb(1e9, n_d, stage) for stage in range(4)]
        assert values == sorted(values, reverse=True) and values[0] > values[3]
        assert values[3] == pytest.approx(16.0 / n_d)
    # the paper's introduction: a trillion parameters need about 16 TB; over 1024 devices with
    # stage 3 that is about 16 GB per device
    assert impl.zero_memory_gb(1e12, 1, 0) == pytest.approx(16_000.0)
    assert impl.zero_memory_gb(1e12, 1024, 3) == pytest.approx(15.625)


@pytest.mark.requirement(4)
def test_other_bytes_per_parameter(impl):
    # e.g. float32 weights and gradients with an 8-byte optimizer state (K = 8)
    gb = impl.zero_memory_gb(
        1e9, 4, 1, param_bytes=4, grad_bytes=4, optimizer_bytes=8
    )
    assert gb == pytest.approx(4 + 4 + 8 / 4)
    gb = impl.zero_memory_gb(2e9, 8, 2, optimizer_bytes=4)
    assert gb == pytest.approx(2 * 2 + (2 + 4) * 2 / 8)


@pytest.mark.requirement(6)
def test_max_params(impl):
    # 32 GB per device, 64 devices, stage 3: 32e9 * 64 / 16 bytes = 128e9 parameters
    assert impl.max_params(32, 64, 3) == pytest.approx(128e9)
    # stage 0 on any number of devices: 32e9 / 16 = 2e9
    assert impl.max_params(32, 64, 0) == pytest.approx(2e9)
    for stage in range(4):
        psi = impl.max_params(40.0, 16, stage, optimizer_bytes=8)
        assert impl.zero_memory_gb(
            psi, 16, stage, optimizer_bytes=8
        ) == pytest.approx(40.0)


@pytest.mark.requirement(7)
def test_invalid_arguments(impl):
    for args in [(PSI, N_D, 4), (PSI, N_D, -1), (PSI, 0, 1), (-1.0, N_D, 1)]:
        with pytest.raises(ValueError):
            impl.zero_model_state_bytes(*args)
    with pytest.raises(ValueError):
        impl.zero_memory_gb(PSI, N_D, 5)


INVALID_AND_BOUNDARY = [  # (psi, dp_degree, stage, valid)
    (PSI, N_D, 4, False),
    (PSI, N_D, 5, False),
    (PSI, N_D, -1, False),
    (PSI, 0, 1, False),
    (PSI, -1, 1, False),  # every dp_degree < 1, not only 0
    (PSI, 0.5, 3, False),
    (-1.0, N_D, 1, False),
    (-1, N_D, 0, False),
    (-1e-9, N_D, 2, False),
    (0, 1, 0, True),  # the boundaries are valid
    (-0.0, 1, 3, True),  # -0.0 is not negative
]


@pytest.mark.requirement(7, 8)
@pytest.mark.parametrize(
    "function,psi,n_d,stage,valid",
    [
        (function, *case)
        for function in ["state", "gb", "max_params"]
        for case in INVALID_AND_BOUNDARY
        if function != "max_params" or case[0] == PSI  # it takes no psi
    ],
)
def test_every_invalid_argument_raises_in_every_function(
    impl, function, psi, n_d, stage, valid
):
    """All three functions, and the whole of each invalid range."""
    call = {
        "state": lambda: impl.zero_model_state_bytes(psi, n_d, stage),
        "gb": lambda: impl.zero_memory_gb(psi, n_d, stage),
        "max_params": lambda: impl.max_params(32.0, n_d, stage),
    }[function]
    if valid:
        assert call() is not None
    else:
        with pytest.raises(ValueError):
            call()


def bytes_oracle(psi, n_d, stage, sizes):
    """Exact rational bytes per state: a state is divided by N_d when the
    stage partitions it (Section 5 of the paper)."""
    return {
        state: Fraction(psi)
        * Fraction(size)
        / (n_d if state in PARTITIONED[stage] else 1)
        for state, size in sizes.items()
    }


@pytest.mark.requirement(2, 3, 4)
@given(
    psi=st.one_of(st.integers(0, 10**13), st.floats(0, 1e13)),
    n_d=st.integers(1, 4096),
    stage=st.integers(0, 3),
    sizes=st.fixed_dictionaries(
        {
            "params": st.sampled_from([1, 2, 4]),
            "grads": st.sampled_from([2, 4]),
            "optimizer": st.sampled_from([4, 8, 12, 16]),
        }
    ),
)
@example(
    psi=7, n_d=3, stage=3, sizes={"params": 4, "grads": 2, "optimizer": 12}
)
def test_breakdown_matches_oracle(impl, psi, n_d, stage, sizes):
    kwargs = {
        "param_bytes": sizes["params"],
        "grad_bytes": sizes["grads"],
        "optimizer_bytes": sizes["optimizer"],
    }
    b = impl.zero_model_state_bytes(psi, n_d, stage, **kwargs)
    want = bytes_oracle(psi, n_d, stage, sizes)
    assert set(b) == {"params", "grads", "optimizer", "total"}
    assert all(type(v) is float for v in b.values()), b
    for state in sizes:
        assert b[state] == pytest.approx(float(want[state]), rel=1e-12)
    total = float(sum(want.values()))
    assert b["total"] == pytest.approx(total, rel=1e-12)
    gb = impl.zero_memory_gb(psi, n_d, stage, **kwargs)
    assert type(gb) is float and gb == pytest.approx(total / 1e9, rel=1e-12)


@pytest.mark.requirement(6)
@given(
    memory=st.floats(0.5, 1e4),
    n_d=st.integers(1, 4096),
    stage=st.integers(0, 3),
    optimizer_bytes=st.sampled_from([4, 8, 12]),
)
@example(memory=32.0, n_d=64, stage=3, optimizer_bytes=12)
def test_max_params_inverts_memory(impl, memory, n_d, stage, optimizer_bytes):
    psi = impl.max_params(memory, n_d, stage, optimizer_bytes=optimizer_bytes)
    per_param = bytes_oracle(
        1, n_d, stage, {"params": 2, "grads": 2, "optimizer": optimizer_bytes}
    )
    assert psi == pytest.approx(memory * 1e9 / float(sum(per_param.values())))


@pytest.mark.requirement(8)
def test_boundaries_are_valid(impl):
    """Zero parameters cost nothing; one device is a valid degree."""
    for stage in range(4):
        b = impl.zero_model_state_bytes(0, 1, stage)
        assert b == {
            "params": 0.0,
            "grads": 0.0,
            "optimizer": 0.0,
            "total": 0.0,
        }
        assert impl.zero_memory_gb(0, 64, stage) == 0.0


@pytest.mark.requirement(6)
@pytest.mark.parametrize("memory", [1e-9, 2.5e-8, 1e-6])
def test_max_params_inverts_tiny_memories(impl, memory):
    """A budget of 1 to 1000 bytes holds a fraction of a 16-byte parameter or
    a count with a fraction: the inverse is exact, not rounded down."""
    psi = impl.max_params(memory, 1, 0)
    assert psi == pytest.approx(memory * 1e9 / 16, rel=1e-12)
    assert impl.zero_memory_gb(psi, 1, 0) == pytest.approx(memory, rel=1e-12)


@pytest.mark.requirement(8)
def test_arguments_by_their_names(impl):
    """The leading arguments may be given by their names in the signature."""
    b = impl.zero_model_state_bytes(num_params=10, dp_degree=2, stage=3)
    assert b["total"] == pytest.approx(10 * 16 / 2)
