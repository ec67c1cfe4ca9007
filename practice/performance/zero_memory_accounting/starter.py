"""Account for ZeRO Memory by Stage.

ZeRO (Rajbhandari et al., 2020, "ZeRO: Memory Optimizations Toward Training
Trillion Parameter Models") removes the copies of the model states that plain
data parallelism keeps on every device. With mixed-precision Adam, each
parameter costs

    2 bytes (float16 weights) + 2 bytes (float16 gradients)
    + K = 12 bytes of optimizer state (float32 weights, momentum, variance).

Stage 1 partitions the optimizer state over the N_d data-parallel devices,
stage 2 also the gradients, stage 3 also the parameters; stage 0 is plain data
parallelism. Pure Python: no JAX.
"""

from __future__ import annotations

#: 1 GB as in the paper's figures: 10**9 bytes.
GB = 1e9


def zero_model_state_bytes(
    num_params: float,
    dp_degree: int,
    stage: int,
    *,
    param_bytes: float = 2,
    grad_bytes: float = 2,
    optimizer_bytes: float = 12,
) -> dict[str, float]:
    """Per-device bytes of the model states under ZeRO stage ``stage``.

    num_params: number of parameters (>= 0); dp_degree: data-parallel degree
    N_d (int >= 1); stage: 0, 1, 2 or 3. Returns a dict of Python floats with
    keys "params", "grads", "optimizer" and "total" (the sum of the three). A
    partitioned state is divided by N_d. Raises ValueError for a stage outside
    0..3, dp_degree < 1 or num_params < 0.
    """
    raise NotImplementedError(
        "zero_model_state_bytes: which states does each stage divide by N_d?"
    )


def zero_memory_gb(
    num_params: float, dp_degree: int, stage: int, **bytes_per_param
) -> float:
    """Total per-device model-state memory in GB (10**9 bytes), as a Python
    float.

    Keyword arguments are passed on to ``zero_model_state_bytes``.
    """
    raise NotImplementedError("zero_memory_gb: total bytes / GB")


def max_params(
    memory_gb: float, dp_degree: int, stage: int, **bytes_per_param
) -> float:
    """The largest number of parameters whose model states fit in ``memory_gb``
    GB per device.

    The inverse of ``zero_memory_gb`` in ``num_params`` (memory is linear in
    it); not rounded.
    """
    raise NotImplementedError(
        "max_params: memory divided by the bytes one parameter costs per "
        "device"
    )
