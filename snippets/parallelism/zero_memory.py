def zero_bytes(psi, n_d, stage, k=12):
    """Per-device bytes of model state. psi: parameter count, n_d: devices."""
    params, grads, optimizer = 2 * psi, 2 * psi, k * psi
    if stage >= 1:
        optimizer /= n_d
    if stage >= 2:
        grads /= n_d
    if stage >= 3:
        params /= n_d
    return params + grads + optimizer


formulas = [
    "(2 + 2 + K) Psi",
    "2 Psi + 2 Psi + K Psi / N_d",
    "2 Psi + (2 + K) Psi / N_d",
    "(2 + 2 + K) Psi / N_d",
]
print("Psi = 7.5e9, N_d = 64, K = 12 (mixed-precision Adam):")
for stage, formula in enumerate(formulas):
    gb = zero_bytes(7.5e9, 64, stage) / 1e9
    print(f"stage {stage}: {formula:28s} {gb:6.1f} GB per device")
