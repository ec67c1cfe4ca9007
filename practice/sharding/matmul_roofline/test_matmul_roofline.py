"""Tests for Roofline of a Matmul. Oracles: the bytes of real arrays and of
their product, the terms of a product of ones, exact fractions, and a search
over m."""

from fractions import Fraction

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import assume, example, given, strategies as st

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


def check_min_rows(impl, k, n, s, peak, bw):
    """min_compute_bound_rows against the search, ValueError where it finds
    no compute-bound m."""
    want = oracle_min_rows(k, n, s, peak, bw)
    if want is None:
        with pytest.raises(ValueError):
            impl.min_compute_bound_rows(k, n, s, peak, bw)
        return
    got = impl.min_compute_bound_rows(k, n, s, peak, bw)
    assert type(got) is int and got == want, (got, want)


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
    m=sizes,
    k=st.integers(257, 4096),
    n=sizes,
    dtype=st.sampled_from(DTYPES),
)
@example(m=1, k=257, n=1, dtype=jnp.float32)
def test_numpy_sizes_and_dtypes_compared_by_value(impl, m, k, n, dtype):
    """NumPy gives each array's shape new Python ints (CPython shares only
    those up to 256), and a dtype with its byte order spelled out ('=', as
    after converting big-endian data) is equal to NumPy's own dtype but not
    the same object: equal sizes and dtypes must compare equal."""
    a = np.zeros((m, k), np.dtype(dtype).newbyteorder("="))
    b = np.zeros((k, n), np.dtype(dtype))
    assert impl.matmul_cost(a, b) == oracle_cost(m, k, n, dtype)


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


@pytest.mark.requirement(3)
@pytest.mark.parametrize(
    "first, second",
    [(x, y) for x in DTYPES for y in DTYPES if x is not y],
    ids=lambda dtype: np.dtype(dtype).name,
)
def test_every_pair_of_dtypes_raises(impl, first, second):
    with pytest.raises(ValueError):
        impl.matmul_cost(
            jax.ShapeDtypeStruct((4, 3), first),
            jax.ShapeDtypeStruct((3, 5), second),
        )


@pytest.mark.requirement(3)
@given(m=sizes, k=sizes, k2=sizes, n=sizes)
@example(m=2, k=4, k2=3, n=5)  # the first operand's inner size is larger
@example(m=2, k=3, k2=4, n=5)  # smaller
def test_inner_sizes_that_differ_raise(impl, m, k, k2, n):
    assume(k != k2)
    with pytest.raises(ValueError):
        impl.matmul_cost(
            jax.ShapeDtypeStruct((m, k), jnp.float32),
            jax.ShapeDtypeStruct((k2, n), jnp.float32),
        )


@pytest.mark.requirement(3)
@given(rank_a=st.integers(0, 4), rank_b=st.integers(0, 4))
@example(rank_a=0, rank_b=2)
@example(rank_a=2, rank_b=0)
@example(rank_a=3, rank_b=3)
@example(rank_a=1, rank_b=1)
def test_every_rank_but_two_raises(impl, rank_a, rank_b):
    assume((rank_a, rank_b) != (2, 2))
    # sizes of 3 throughout: only the rank is wrong
    with pytest.raises(ValueError):
        impl.matmul_cost(
            jax.ShapeDtypeStruct((3,) * rank_a, jnp.float32),
            jax.ShapeDtypeStruct((3,) * rank_b, jnp.float32),
        )


@pytest.mark.requirement(4)
@pytest.mark.parametrize(
    "args, want",
    [
        ((6, 4, 2, 1), 4.0),  # 3 s of FLOPs, 4 s of bytes
        ((8, 2, 2, 1), 4.0),  # 4 s of FLOPs, 2 s of bytes
        ((0, 3, 5, 2), 1.5),
        ((7, 0, 2, 9), 3.5),
    ],
)
def test_roofline_worked_examples(impl, args, want):
    seconds = impl.roofline_seconds(*args)
    assert type(seconds) is float and seconds == want, seconds


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


#: the largest rejected value of each argument: a negative count, a rate <= 0
ROOFLINE_ARGS = dict(flops=-1, nbytes=-1, peak_flops=0, hbm_bandwidth=0)


@pytest.mark.requirement(4)
@given(
    below=st.dictionaries(
        st.sampled_from(list(ROOFLINE_ARGS)),
        st.integers(0, 10**20),
        min_size=1,
    )
)
@example(below={"flops": 0})
@example(below={"nbytes": 0})
@example(below={"peak_flops": 0})
@example(below={"hbm_bandwidth": 0})
@example(below={"peak_flops": 1})
@example(below={"hbm_bandwidth": 1})
def test_roofline_rejects_every_bad_rate_and_count(impl, below):
    """Each argument in ``below`` is that far under its largest rejected
    value; the others are valid."""
    args = dict(flops=6, nbytes=4, peak_flops=2, hbm_bandwidth=1)
    args.update({name: ROOFLINE_ARGS[name] - by for name, by in below.items()})
    with pytest.raises(ValueError):
        impl.roofline_seconds(**args)


@pytest.mark.requirement(5, 6)
@pytest.mark.parametrize(
    "k, n, s, peak, bw, want",
    [
        # worked by hand: m FLOPs' time against m bytes' time, exactly
        (2, 2, 1, 1, 1, 1),  # m = 1: 8 FLOPs, 8 bytes: a tie
        (1, 2, 1, 1, 1, 2),  # m = 1: 4 FLOPs, 5 bytes; m = 2: 8 and 8
        (4, 4, 1, 7, 2, 14),  # m = 13: 416 / 7 < 120 / 2; m = 14: 64 = 64
        # the intensity tends to 2kn / (s (k + n)) = 2, the critical one:
        # 8m FLOPs / 2 < (4m + 4) bytes / 1 for every m
        (2, 2, 1, 2, 1, None),
        (1, 2, 1, 3, 2, None),  # limit 4 / 3 below the critical 3 / 2
    ],
)
def test_min_rows_worked_examples(impl, k, n, s, peak, bw, want):
    if want is None:
        with pytest.raises(ValueError):
            impl.min_compute_bound_rows(k, n, s, peak, bw)
        return
    got = impl.min_compute_bound_rows(k, n, s, peak, bw)
    assert type(got) is int and got == want, got


@pytest.mark.requirement(5, 6)
@given(
    k=st.integers(1, 2**14),
    n=st.integers(1, 2**14),
    s=st.sampled_from([1, 2, 4]),
    t=st.integers(1, 2**20),
    off=st.integers(-1, 1),
)
@example(k=1, n=1, s=1, t=1, off=0)
@example(k=1, n=1, s=1, t=1, off=1)
@example(k=3, n=5, s=2, t=7, off=-1)
def test_min_rows_at_the_limit_intensity(impl, k, n, s, t, off):
    """The limit of the intensity, 2kn / (s (k + n)), equals the critical
    peak / bw for bw = s (k + n) t and peak = 2knt; off moves bw by one
    either side: below the limit (off = -1) or at it (off = 0) no m is
    compute-bound, just above it (off = 1) a large m is."""
    peak, bw = 2 * k * n * t, s * (k + n) * t + off
    check_min_rows(impl, k, n, s, peak, bw)


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
    check_min_rows(impl, k, n, s, peak, bw)


@pytest.mark.requirement(5)
@given(
    k=st.integers(1, 2**14),
    n=st.integers(1, 2**14),
    s=st.sampled_from([1, 2, 4]),
    m=st.integers(1, 2**20),
    peak=st.integers(1, 10**30),
    off=st.integers(-1, 0),
)
@example(k=4096, n=4096, s=2, m=4, peak=10**18, off=-1)
@example(k=1, n=1, s=1, m=1, peak=1, off=0)
def test_min_rows_is_exact_for_huge_rates(impl, k, n, s, m, peak, off):
    """Python ints of any size (checked up to 10**30): bw is the smallest
    bandwidth at which m rows are compute-bound (off = 0), or one less
    (off = -1: m is then just memory-bound, by less than float division
    resolves once the rates pass 2**53)."""
    # m rows compute-bound: 2kn * bw * m >= peak * s * (mk + kn + mn)
    need = peak * s * (m * k + k * n + m * n)
    bw = max(1, -(-need // (2 * k * n * m)) + off)
    check_min_rows(impl, k, n, s, peak, bw)


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


MIN_ROWS_ARGS = ("k", "n", "itemsize", "peak_flops", "hbm_bandwidth")


@pytest.mark.requirement(6)
@given(
    bad=st.dictionaries(
        st.sampled_from(MIN_ROWS_ARGS), st.integers(max_value=0), min_size=1
    )
)
@example(bad={"k": 0})
@example(bad={"n": -1})
@example(bad={"itemsize": -1})
@example(bad={"peak_flops": -1})
@example(bad={"hbm_bandwidth": -1})
@example(bad={"k": -1, "n": -1})
def test_min_rows_rejects_every_argument_not_positive(impl, bad):
    # valid: (8, 8) weight, 2 bytes, peak 1, bw 1 is compute-bound at m = 2
    args = dict(k=8, n=8, itemsize=2, peak_flops=1, hbm_bandwidth=1)
    args.update(bad)
    with pytest.raises(ValueError):
        impl.min_compute_bound_rows(**args)
