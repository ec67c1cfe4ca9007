from snippets.sharding_costs._hardware import CHIPS, one_way

STATE = (
    2 + 2 + 12
)  # bytes per parameter: bf16 weights and gradients, fp32 Adam (ZeRO)
WIRE = 2  # bytes per gradient, parameter or activation sent: bf16
# (an assumption: many frameworks reduce gradients in float32, 4 bytes)
SEQUENCE = 4096  # tokens per sequence: the least batch one replica can take
NVLINK, NIC = one_way("NVLink 4 (H100, H200)"), one_way("400 Gb/s NIC")


def ring(n):
    """Bytes one device sends in an all-gather of 1 byte over n devices."""
    return (n - 1) / n


def bus(nodes, gpus):
    """Bytes per second at which one GPU's ring traffic moves, in a
    collective over all the GPUs of nodes nodes. Inside a node, NVLink.
    Across nodes, NCCL runs one ring per NIC, and each ring leaves and enters
    a node once: a node's gpus NICs together carry about what one GPU sends,
    so one GPU moves at min(NVLink, gpus x NIC)."""
    return NVLINK if nodes == 1 else min(NVLINK, gpus * NIC)


def plans(params, layers, width, tokens, nodes, gpus=8, grad_bytes=WIRE):
    """Per plan: (state bytes per GPU, tokens per replica, seconds of
    communication that can overlap the forward pass, and the backward pass,
    seconds of tensor-parallel communication on the critical path). params:
    parameter count, tokens: global batch in tokens, nodes of gpus H100s,
    one 400 Gb/s NIC per GPU, grad_bytes: bytes per gradient element in the
    reduction."""
    n = nodes * gpus
    # Data parallel: all-reduce of the gradients, which exist only in the
    # backward pass.
    dp = (
        STATE * params,
        tokens / n,
        0,
        2 * ring(n) * grad_bytes * params / bus(nodes, gpus),
        0,
    )
    # FSDP: gather the weights forward and again backward, reduce-scatter
    # the gradients backward.
    forward, backward = WIRE * params, (WIRE + grad_bytes) * params
    fsdp = (
        STATE * params / n,
        tokens / n,
        ring(n) * forward / bus(nodes, gpus),
        ring(n) * backward / bus(nodes, gpus),
        0,
    )
    # Tensor parallel over the gpus of a node, FSDP over the nodes: each
    # FSDP group holds one GPU per node, so its ring crosses that GPU's own
    # NIC; each layer all-reduces its activations twice forward and twice
    # backward, over NVLink, all counted on the critical path (an upper
    # bound: the backward ones can overlap the weight gradients' matmuls).
    act = WIRE * tokens / nodes * width
    tp = 4 * layers * 2 * ring(gpus) * act / NVLINK
    link = ring(nodes) / gpus / (NIC if nodes > 1 else NVLINK)
    tp_fsdp = (
        STATE * params / n,
        tokens / nodes,
        forward * link,
        backward * link,
        tp,
    )
    return {"data parallel": dp, "FSDP": fsdp, "TP x FSDP": tp_fsdp}


peak, _, hbm = CHIPS["H100 SXM"]
print(
    f"fits: state <= half of {hbm / 1e9:.0f} GB, and a whole "
    f"{SEQUENCE}-token sequence per replica"
)
print("compute at peak bf16, 6 x params x tokens FLOPs")
print("forward: 2 x params x tokens FLOPs, backward: 4 x params x tokens")
print(
    "step = max(forward compute, forward traffic)"
    " + max(backward compute, backward traffic) + TP communication"
)
print(
    f"bus bandwidth per GPU: {bus(1, 8) / 1e9:.0f} GB/s in one node, "
    f"{bus(2, 8) / 1e9:.0f} GB/s across nodes (8 NICs of {NIC / 1e9:.0f} GB/s)"
)
# Per parameter and GPU: data parallel sends 2 x 2 bytes backward; FSDP 2
# forward and 2 x 2 backward. Per parameter and token: 2 FLOPs forward, 4
# backward. In each pass, traffic hides once tokens per GPU >= peak / bus.
print(
    f"tokens per GPU to hide data parallel or FSDP: {peak / bus(1, 8):.0f} "
    f"in one node, {peak / bus(2, 8):.0f} across nodes"
)
SCENARIOS = [  # params, layers, width, tokens per step, nodes of 8 H100
    ("1.3B model, 8 GPUs", 1.3e9, 24, 2048, 2**19, 1),
    ("13B model, 8 GPUs", 13e9, 40, 5120, 2**19, 1),
    ("70B model, 64 GPUs", 70e9, 80, 8192, 2**20, 8),
    ("70B model, 2048 GPUs", 70e9, 80, 8192, 2**22, 256),
]
for name, params, layers, width, tokens, nodes in SCENARIOS:
    compute = 6 * params * tokens / (nodes * 8 * peak)
    print(f"{name}, {tokens} tokens, {tokens // (nodes * 8)} per GPU")
    print(
        f"  seconds of compute per step: {compute:.2f} "
        f"(forward {compute / 3:.2f}, backward {2 * compute / 3:.2f})"
    )
    print(
        f"  {'plan':13} {'state GB':>8} {'tokens/replica':>14} {'fits':>4} "
        f"{'forward':>7} {'backward':>8} {'TP':>4} {'step':>5}"
    )
    choice, best = None, None
    for plan, (state, per_replica, fwd, bwd, exposed) in plans(
        params, layers, width, tokens, nodes
    ).items():
        fits = state <= hbm / 2 and per_replica >= SEQUENCE
        step = max(compute / 3, fwd) + max(2 * compute / 3, bwd) + exposed
        print(
            f"  {plan:13} {state / 1e9:8.1f} {per_replica:14.0f} "
            f"{'yes' if fits else 'no':>4} {fwd:7.2f} {bwd:8.2f} "
            f"{exposed:4.2f} {step:5.2f}"
        )
        if fits and (best is None or step < best):  # a tie keeps the simpler
            choice, best = plan, step
    print(f"  -> {choice}")
# TP's all-reduces and its compute both grow with the tokens: their ratio is
# set by the width. With about 12 x width**2 parameters a layer, it is
# 8 x ring(8) x WIRE x 8 x peak / (72 x width x NVLink).
print("TP x FSDP on one node, TP all-reduce seconds / compute seconds:")
for name, params, layers, width in [
    ("1.3B", 1.3e9, 24, 2048),
    ("70B", 70e9, 80, 8192),
]:
    ratios = [
        plans(params, layers, width, tokens, 1)["TP x FSDP"][4]
        / (6 * params * tokens / (8 * peak))
        for tokens in (2**15, 2**19, 2**23)
    ]
    print(
        f"  {name}, width {width}, at 2**15, 2**19, 2**23 tokens:",
        ", ".join(f"{r:.2f}" for r in ratios),
    )
even = 8 * ring(8) * WIRE * 8 * peak / (72 * NVLINK)
print(f"width at which TP's exposed all-reduces cost its compute: {even:.0f}")
# Hidden under the matmuls (collective matmuls): per layer, F / 8 columns of
# each GPU's matmul against the F-wide activations it sends.
print(
    "8-way TP compute-bound (F / 8 > peak / NVLink): F > "
    f"{8 * peak / NVLINK:.0f}, width > {8 * peak / NVLINK / 4:.0f} "
    "with F = 4 x width"
)
# The 70B model on 64 GPUs, with the gradients reduced in float32.
f32 = plans(70e9, 80, 8192, 2**20, 8, grad_bytes=4)
print(
    "70B on 64 GPUs, gradients reduced in float32: backward seconds, "
    f"data parallel {f32['data parallel'][3]:.2f}, FSDP {f32['FSDP'][3]:.2f}"
)
MFU = 0.5  # model FLOPs utilisation: 6 x params x tokens / (seconds x peak)
print(
    f"at {MFU:.0%} MFU: compute seconds x {1 / MFU:.0f}, tokens per GPU to "
    f"hide data parallel or FSDP: {MFU * peak / bus(1, 8):.0f} in one node, "
    f"{MFU * peak / bus(2, 8):.0f} across nodes"
)
