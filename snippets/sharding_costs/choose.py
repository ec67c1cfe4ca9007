from snippets.sharding_costs._hardware import CHIPS, one_way

STATE = (
    2 + 2 + 12
)  # bytes per parameter: bf16 weights and gradients, fp32 Adam (ZeRO)
WIRE = 2  # bytes per gradient, parameter or activation sent: bf16


def ring(n):
    """Bytes one device sends in an all-gather of 1 byte over n devices."""
    return (n - 1) / n


def plans(params, layers, width, tokens, nodes, gpus=8):
    """Per-device state bytes and seconds per step of communication for
    each plan. params: parameter count, tokens: global batch in tokens,
    nodes of gpus GPUs, NVLink inside a node, one 400 Gb/s NIC per GPU."""
    n = nodes * gpus
    link = one_way("NVLink 4 (H100, H200)" if nodes == 1 else "400 Gb/s NIC")
    nvlink = one_way("NVLink 4 (H100, H200)")
    # Data parallel: all-reduce of the gradients.
    dp = (STATE * params, 2 * ring(n) * WIRE * params / link)
    # FSDP: gather the weights forward and again backward, reduce-scatter
    # the gradients.
    fsdp = (STATE * params / n, 3 * ring(n) * WIRE * params / link)
    # Tensor parallel over the gpus of a node, FSDP over the nodes: each
    # layer all-reduces its activations twice forward and twice backward.
    act = WIRE * tokens / nodes * width
    tp = 4 * layers * 2 * ring(gpus) * act / nvlink
    tp_fsdp = (
        STATE * params / n,
        tp + 3 * ring(nodes) * WIRE * params / gpus / one_way("400 Gb/s NIC"),
    )
    return {"data parallel": dp, "FSDP": fsdp, "TP x FSDP": tp_fsdp}


peak, _, hbm = CHIPS["H100 SXM"]
SCENARIOS = [  # params, layers, width, tokens per step, nodes of 8 H100
    ("1.3B model, 8 GPUs", 1.3e9, 24, 2048, 2**19, 1),
    ("13B model, 8 GPUs", 13e9, 40, 5120, 2**19, 1),
    ("70B model, 64 GPUs", 70e9, 80, 8192, 2**20, 8),
]
print(
    f"budget for the state: half of {hbm / 1e9:.0f} GB; "
    "compute at peak bf16: 6 x params x tokens FLOPs"
)
for name, params, layers, width, tokens, nodes in SCENARIOS:
    compute = 6 * params * tokens / (nodes * 8 * peak)
    print(
        f"{name}, {tokens} tokens; seconds of compute per step: {compute:.2f}"
    )
    print(
        f"  {'plan':13} {'state GB':>8} {'fits':>4} {'comm. seconds':>13} {'/ compute':>9}"
    )
    choice = None
    for plan, (state, comm) in plans(
        params, layers, width, tokens, nodes
    ).items():
        fits, hidden = state <= hbm / 2, comm <= compute
        print(
            f"  {plan:13} {state / 1e9:8.1f} {'yes' if fits else 'no':>4} "
            f"{comm:13.2f} {comm / compute:9.2f}"
        )
        if choice is None and fits and hidden:
            choice = plan
    print(f"  -> {choice}")
