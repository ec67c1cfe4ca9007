from snippets.sharding_costs._hardware import CHIPS, one_way

PARAMS, LAYERS, WIDTH, HEADS = 70e9, 80, 8192, 64  # the 70B model
SEQUENCE = 4096  # tokens per sequence


def kept(tokens, tp=1, scores=False):
    """Bytes one transformer layer keeps for its backward pass, in bf16, by
    the count of Korthikanti et al. (2022): 34 bytes per token and unit of
    width, plus 5 per token, head and position of the attention scores when
    they are stored; with tensor and sequence parallelism over tp GPUs,
    each GPU keeps 1/tp of it."""
    per_token = 34 * WIDTH + (5 * HEADS * SEQUENCE if scores else 0)
    return tokens * per_token / tp


def remat(tokens, tp=1):
    """Bytes per layer when each layer keeps only its bf16 input and
    recomputes the rest in the backward pass."""
    return tokens * 2 * WIDTH / tp


peak, _, hbm = CHIPS["H100 SXM"]
seq = kept(SEQUENCE)
print(f"one {SEQUENCE}-token sequence, one layer: {seq / 1e9:.2f} GB kept")
print(
    "  plus the attention scores, if no fused attention kernel: "
    f"{(kept(SEQUENCE, scores=True) - seq) / 1e9:.2f} GB"
)
print(f"per GPU, {LAYERS} layers, against half of {hbm / 1e9:.0f} GB:")
for plan, tokens, tp in [
    ("FSDP, 64 GPUs", 2**20 // 64, 1),
    ("TP x FSDP with sequence parallelism, 64 GPUs", 2**20 // 8, 8),
]:
    every = LAYERS * kept(tokens, tp)
    # the inputs, and one layer's activations while it is recomputed
    inputs = LAYERS * remat(tokens, tp) + kept(tokens, tp)
    print(f"  {plan}, {tokens} tokens a replica")
    fits = every <= hbm / 2
    print(
        f"    all kept (fused attention): {every / 1e9:.1f} GB, fits: {fits}"
    )
    print(
        f"    inputs, and one layer recomputed: {inputs / 1e9:.1f} GB, "
        f"fits: {inputs <= hbm / 2}"
    )
compute = 6 * PARAMS * 2**20 / (64 * peak)
print("recomputing the forward pass: 8 instead of 6 x params FLOPs a token,")
print(f"  seconds of compute per step: {compute:.2f} -> {compute * 8 / 6:.2f}")
# Under TP x FSDP the recomputed forward pass repeats its 2 all-reduces a
# layer over NVLink, on the critical path: 6 a layer instead of 4.
act = 2 * 2**20 // 8 * WIDTH  # bytes of one replica's bf16 activations
allreduce = 2 * 7 / 8 * act / one_way("NVLink 4 (H100, H200)")
print(  # seconds, unit in the label: a computed figure, not a timing
    f"  seconds of TP x FSDP all-reduces per step: "
    f"{4 * LAYERS * allreduce:.2f} -> {6 * LAYERS * allreduce:.2f}"
)
