"""Tests for Roofline of a Matmul. Oracles: the bytes of real arrays and of
their product, the terms of a product of ones, exact fractions, and a search
over m."""

from fractions import Fraction

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import example, given, strategies as st

DTYPES = [jnp.float32, jnp.bfloat16, jnp.float16, jnp.int8, jnp.int32]
H100 = dict(peak_flops=989 * 10**12, hbm_bandwidth=335 * 10**10)  # bf16 dense

sizes = st.integers(1, 24)


def oracle_cost(m, k, n, dtype):
    """Counted on real arrays: the multiply-adds of a product of ones, and
    the bytes of both operands and of their product."""
    a, b = jnp.ones((m, k), dtype), jnp.ones((k, n), dtype)
    terms = int(np.ones((m, k), np.int64).dot(np.ones((k, n), np.int64)).sum())
    return 2 * terms, a.nbytes + b.nbytes + (a @ b).nbytes


def compute_bound(m, k, n, s, peak, bw):
    """Exact: flops / peak >= bytes / bw, for an (m, k) @ (k, n) product."""
    flops, nbytes = 2 * m * k * n, s * (m * k + k * n + m * n)
    return Fraction(flops, peak) >= Fraction(nbytes, bw)


def oracle_min_rows(k, n, s, peak, bw):
    """Smallest compute-bound m by doubling then bisection; None if even
    m = 2**120 is memory-bound (the intensity is increasing in m)."""
    hi = 1
    while not compute_bound(hi, k, n, s, peak, bw):
        hi *= 2
        if hi > 2**120:
            return None
    lo = hi // 2  # memory-bound (or 0)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (
            (lo, mid) if compute_bound(mid, k, n, s, peak, bw) else (mid, hi)
        )
    return hi


@pytest.mark.requirement(1)
@given(m=sizes, k=sizes, n=sizes, dtype=st.sampled_from(DTYPES))
@example(m=1, k=1, n=1, dtype=jnp.float32)
@example(m=3, k=5, n=7, dtype=jnp.bfloat16)
def test_cost_counts_terms_and_bytes(impl, m, k, n, dtype):
    a, b = jnp.ones((m, k), dtype), jnp.ones((k, n), dtype)
    flops, nbytes = impl.matmul_cost(a, b)
    assert type(flops) is int and type(nbytes) is int, (
        type(flops),
        type(nbytes),
    )
    assert (flops, nbytes) == oracle_cost(m, k, n, dtype)


@pytest.mark.requirement(2)
@given(m=sizes, k=sizes, n=sizes, dtype=st.sampled_from(DTYPES))
def test_arrays_numpy_and_shape_dtype_structs_alike(impl, m, k, n, dtype):
    want = oracle_cost(m, k, n, dtype)
    for make in (
        lambda shape: jnp.zeros(shape, dtype),
        lambda shape: np.zeros(shape, np.dtype(dtype)),
        lambda shape: jax.ShapeDtypeStruct(shape, dtype),
    ):
        assert impl.matmul_cost(make((m, k)), make((k, n))) == want


@pytest.mark.requirement(2)
@given(
    big=st.integers(2**31, 2**48),
    k=st.integers(1, 2**16),
    n=st.integers(1, 2**16),
    dtype=st.sampled_from(DTYPES),
)
@example(big=2**40, k=2**16, n=2**16, dtype=jnp.float32)  # flops > 2**63
def test_shapes_too_large_to_allocate(impl, big, k, n, dtype):
    # scale the counts of a (1, 1) @ (1, 1) product: one term, three items
    flops_per_term, bytes_of_three = oracle_cost(1, 1, 1, dtype)
    s = bytes_of_three // 3
    a, b = (
        jax.ShapeDtypeStruct((big, k), dtype),
        jax.ShapeDtypeStruct((k, n), dtype),
    )
    flops, nbytes = impl.matmul_cost(a, b)
    assert type(flops) is int and type(nbytes) is int, (
        type(flops),
        type(nbytes),
    )
    assert flops == flops_per_term * big * k * n
    assert nbytes == s * (big * k + k * n + big * n)


@pytest.mark.requirement(3)
@pytest.mark.parametrize(
    "a, b",
    [
        ((4, 3), (4, 3)),  # inner sizes differ
        ((4,), (4, 3)),  # 1-D
        ((2, 4, 3), (3, 5)),  # 3-D
        ((4, 3), (3,)),
    ],
)
def test_bad_shapes_raise(impl, a, b):
    with pytest.raises(ValueError):
        impl.matmul_cost(
            jax.ShapeDtypeStruct(a, jnp.float32),
            jax.ShapeDtypeStruct(b, jnp.float32),
        )


@pytest.mark.requirement(3)
def test_mixed_dtypes_raise(impl):
    with pytest.raises(ValueError):
        impl.matmul_cost(
            jax.ShapeDtypeStruct((4, 3), jnp.float32),
            jax.ShapeDtypeStruct((3, 5), jnp.bfloat16),
        )


@pytest.mark.requirement(4)
@given(
    flops=st.integers(0, 10**20),
    nbytes=st.integers(0, 10**15),
    peak=st.integers(1, 10**16),
    bw=st.integers(1, 10**13),
)
@example(flops=10**15, nbytes=10**12, peak=10**15, bw=10**12)  # a tie
@example(flops=0, nbytes=0, peak=1, bw=1)
def test_roofline_is_the_larger_time(impl, flops, nbytes, peak, bw):
    seconds = impl.roofline_seconds(flops, nbytes, peak, bw)
    assert type(seconds) is float
    want = max(Fraction(flops, peak), Fraction(nbytes, bw))
    assert seconds == pytest.approx(float(want), rel=1e-12, abs=0)


@pytest.mark.requirement(4)
@pytest.mark.parametrize(
    "args",
    [(1, 1, 0, 1), (1, 1, 1, 0), (1, 1, -5, 1), (-1, 1, 1, 1), (1, -1, 1, 1)],
)
def test_roofline_rejects_bad_rates_and_counts(impl, args):
    with pytest.raises(ValueError):
        impl.roofline_seconds(*args)


@pytest.mark.requirement(5, 6)
@given(
    k=st.integers(1, 2**14),
    n=st.integers(1, 2**14),
    s=st.sampled_from([1, 2, 4]),
    peak=st.integers(10**9, 10**16),
    bw=st.integers(10**8, 10**13),
)
@example(
    k=8192,
    n=8192,
    s=2,
    **{"peak": H100["peak_flops"], "bw": H100["hbm_bandwidth"]},
)
@example(k=2, n=2, s=1, peak=1, bw=1)  # compute-bound exactly at m = 1
@example(k=4, n=4, s=1, peak=3, bw=1)  # a tie at m = 6
@example(k=4, n=4, s=1, peak=7, bw=2)
def test_min_rows_is_the_first_compute_bound_m(impl, k, n, s, peak, bw):
    want = oracle_min_rows(k, n, s, peak, bw)
    if want is None:
        with pytest.raises(ValueError):
            impl.min_compute_bound_rows(k, n, s, peak, bw)
        return
    got = impl.min_compute_bound_rows(k, n, s, peak, bw)
    assert type(got) is int and got == want, (got, want)


@pytest.mark.requirement(5)
def test_h100_bf16_square_weight(impl):
    # 2 * 8192 ** 2 FLOPs per row against 2 * (2 * 8192) bytes per row plus
    # the weight's 2 * 8192 ** 2 once: compute-bound from m = 319 on
    m = impl.min_compute_bound_rows(8192, 8192, 2, **H100)
    assert m == 319
    rates = {"peak": H100["peak_flops"], "bw": H100["hbm_bandwidth"]}
    assert compute_bound(m, 8192, 8192, 2, **rates)
    assert not compute_bound(m - 1, 8192, 8192, 2, **rates)


@pytest.mark.requirement(6)
@pytest.mark.parametrize(
    "args",
    [
        (1, 1, 2, *H100.values()),  # intensity below 1 FLOP per byte
        (64, 64, 2, *H100.values()),  # limit 32 < 295
        (0, 8, 2, 1, 1),
        (8, 8, 0, 1, 1),
        (8, 8, 2, 0, 1),
        (8, 8, 2, 1, -3),
    ],
)
def test_min_rows_raises_when_none_or_bad_args(impl, args):
    with pytest.raises(ValueError):
        impl.min_compute_bound_rows(*args)
