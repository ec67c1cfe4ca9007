from practice.performance.zero_memory_accounting.solution import (
    GB,
    max_params,
    zero_memory_gb,
    zero_model_state_bytes,
)

names = [
    "baseline (stage 0)",
    "stage 1: optimizer",
    "stage 2: + gradients",
    "stage 3: + parameters",
]
print(
    "7.5B parameters, 64-way data parallel, mixed-precision Adam (2 + 2 + 12 "
    "bytes):"
)
for stage, name in enumerate(names):
    b = zero_model_state_bytes(7.5e9, 64, stage)
    print(
        f"  {name:22s} params {b['params'] / GB:6.2f}  grads "
        f"{b['grads'] / GB:6.2f}  "
        f"optimizer {b['optimizer'] / GB:6.2f}  total "
        f"{zero_memory_gb(7.5e9, 64, stage):7.3f} GB"
    )

print(
    "largest model whose states fit in 32 GB per device, in billions of "
    "parameters:"
)
for n_d in [1, 8, 64, 1024]:
    row = "  ".join(
        f"stage {s}: {max_params(32, n_d, s) / 1e9:7.1f}" for s in range(4)
    )
    print(f"  N_d = {n_d:4d}:  {row}")
