"""Roofline of a Matmul.

A chip does at most ``peak_flops`` floating-point operations per second and
moves at most ``hbm_bandwidth`` bytes per second between its memory (HBM) and
its cores. A product of an (m, k) matrix by a (k, n) matrix does 2mkn FLOPs
(a multiply and an add per term) and, when each operand is read once and the
result written once, moves itemsize * (mk + kn + mn) bytes. It takes at least
the larger of the two times (the roofline model, Williams, Waterman and
Patterson, 2009), and it is compute-bound when the FLOPs' time is at least
the bytes' time. No array is computed: shapes and dtypes are enough.
"""

from __future__ import annotations

import numpy as np


def matmul_cost(a, b) -> tuple[int, int]:
    """FLOPs and HBM bytes of ``a @ b`` -> (flops, nbytes), Python ints.

    a: (m, k), b: (k, n), anything with ``.shape`` and ``.dtype`` (a JAX or
    NumPy array, or a ``jax.ShapeDtypeStruct``), of one dtype. Raises
    ValueError when either is not 2-D, the inner sizes differ, or the dtypes
    differ.
    """
    raise NotImplementedError(
        "matmul_cost: 2mkn FLOPs; each operand read once, "
        "the result written once"
    )


def roofline_seconds(flops, nbytes, peak_flops, hbm_bandwidth) -> float:
    """The roofline's lower bound on the time: max(flops / peak_flops,
    nbytes / hbm_bandwidth), in seconds, as a Python float. Raises ValueError
    unless peak_flops and hbm_bandwidth are positive and flops and nbytes
    are not negative."""
    raise NotImplementedError("roofline_seconds: the larger of the two times")


def min_compute_bound_rows(k, n, itemsize, peak_flops, hbm_bandwidth) -> int:
    """The smallest m >= 1 at which (m, k) @ (k, n) is compute-bound:
    flops / peak_flops >= nbytes / hbm_bandwidth, decided exactly (all
    arguments are positive Python ints). Raises ValueError when no m is
    (the intensity stays below peak_flops / hbm_bandwidth however large m
    grows) or when an argument is not positive."""
    raise NotImplementedError(
        "min_compute_bound_rows: solve the compute-bound inequality for m"
    )
