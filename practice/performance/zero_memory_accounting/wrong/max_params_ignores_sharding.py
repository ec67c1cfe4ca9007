"""max_params divides by the unsharded 16 bytes per parameter.

Caught by: test_max_params
"""

from __future__ import annotations

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
    """Bytes of parameters, gradients and optimizer state held by one
    device."""
    if stage not in (0, 1, 2, 3):
        raise ValueError(f"ZeRO stage must be 0, 1, 2 or 3, got {stage}")
    if dp_degree < 1:
        raise ValueError(f"dp_degree must be at least 1, got {dp_degree}")
    if num_params < 0:
        raise ValueError(f"num_params must be non-negative, got {num_params}")
    # stage s partitions the first s states in this order: optimizer,
    # gradients, parameters
    optimizer_share = 1 / dp_degree if stage >= 1 else 1.0
    grad_share = 1 / dp_degree if stage >= 2 else 1.0
    param_share = 1 / dp_degree if stage >= 3 else 1.0
    states = {
        "params": float(num_params * param_bytes * param_share),
        "grads": float(num_params * grad_bytes * grad_share),
        "optimizer": float(num_params * optimizer_bytes * optimizer_share),
    }
    states["total"] = states["params"] + states["grads"] + states["optimizer"]
    return states


def zero_memory_gb(
    num_params: float, dp_degree: int, stage: int, **bytes_per_param
) -> float:
    """Per-device model-state memory in GB (1 GB = 10**9 bytes)."""
    return (
        zero_model_state_bytes(
            num_params, dp_degree, stage, **bytes_per_param
        )["total"]
        / GB
    )


def max_params(
    memory_gb: float, dp_degree: int, stage: int, **bytes_per_param
) -> float:
    """Largest parameter count that fits in memory_gb per device."""
    bytes_per_parameter = zero_model_state_bytes(1, 1, 0, **bytes_per_param)[
        "total"
    ]
    return memory_gb * GB / bytes_per_parameter
