from snippets.sharding_costs._hardware import CHIPS, one_axis

FLOPS, HBM, CAPACITY = CHIPS["TPU v5e"]  # per chip, bf16
ICI = one_axis("TPU v5e ICI")  # bytes per second along one ring
PARAMS, LAYERS, WIDTH, HEADS, KV_HEADS, HEAD = 8e9, 32, 4096, 32, 8, 128
EMBED = 128256 * WIDTH  # the input embedding: a step reads one row a token
N, CONTEXT = 8, 4096  # chips, split over "model"; tokens in each cache
BF16 = 2  # bytes per weight, key, value and activation


def cache_per_token(kv_heads_per_chip):
    """Bytes of keys and values that one token adds on one chip."""
    return 2 * LAYERS * kv_heads_per_chip * HEAD * BF16


def decode_step(batch):
    """Lower bounds of one decode step on each chip, in seconds: (reading
    the weights and every sequence's cache from memory; the FLOPs of the
    weights and of attending to the cache; sending 2 all-reduces of the
    width per layer and token)."""
    cache = batch * CONTEXT * cache_per_token(KV_HEADS / N)
    read = BF16 * (PARAMS - EMBED) / N + cache
    attend = 4 * CONTEXT * HEADS / N * HEAD * LAYERS  # scores, then values
    flops = batch * (2 * (PARAMS - EMBED) / N + attend)
    sent = batch * LAYERS * 2 * 2 * (N - 1) / N * WIDTH * BF16
    return read / HBM, flops / FLOPS, sent / ICI


weights = BF16 * PARAMS / N
room = (CAPACITY - weights) / (CONTEXT * cache_per_token(KV_HEADS / N))
read = BF16 * (PARAMS - EMBED) / N
print(f"per chip: weights {weights / 1e9:.1f} GB", end=" ")
print(f"(a step reads {read / 1e9:.2f} GB of them), cache per token", end=" ")
print(f"{cache_per_token(KV_HEADS / N) / 1024:.0f} KiB, room for", end=" ")
print(f"{room:.0f} sequences of {CONTEXT} tokens")
print("ms per step: memory, FLOPs, ICI bytes; each is a floor")
print("batch   memory   FLOPs     ICI  floor ms  tokens/s (8 chips)")
for batch in [1, 8, 32, 128, 200]:
    memory, compute, network = decode_step(batch)
    step = max(memory, compute, network)  # latency left out
    print(
        f"{batch:5d} {memory * 1e3:8.2f} {compute * 1e3:7.2f}"
        f" {network * 1e3:7.2f} {step * 1e3:9.2f} {batch / step:10.0f}"
    )

long = 128 * 1024  # one sequence of 128k tokens on 16 chips:
whole = long * cache_per_token(KV_HEADS)
heads = long * cache_per_token(1)  # 8 heads, 16 chips: a head per 2 chips
print(f"one {long}-token cache: {whole / 2**30:.0f} GiB; per chip of 16,")
print(f"  split over heads (each repeated twice): {heads / 2**30:.1f} GiB")
print(f"  split over sequence: {whole / 16 / 2**30:.1f} GiB")
