from snippets.sharding_costs._hardware import LINKS, PORTS, one_axis, one_way

GRADIENTS = 2 * 7e9  # bytes: the bf16 gradients of a 7-billion-parameter model
n = 8  # devices in the all-reduce

print(
    f"all-reduce of {GRADIENTS / 1e9:.0f} GB over {n} devices: each sends "
    f"2(n-1)/n x {GRADIENTS / 1e9:.0f} GB = "
    f"{2 * (n - 1) / n * GRADIENTS / 1e9:.1f} GB"
)
print(
    "GB/s one way: over all of a chip's links, and along one ring (one axis)"
)
print(f"{'link':22} {'all':>6} {'ring':>6} {'seconds':>8}  source")
for link, (_, _, source) in LINKS.items():
    seconds = 2 * (n - 1) / n * GRADIENTS / one_axis(link)
    print(
        f"{link:22} {one_way(link) / 1e9:6.2f} {one_axis(link) / 1e9:6.2f} "
        f"{seconds:8.3f}  {source}"
    )
for link, ports in PORTS.items():
    print(f"{link}: a ring along one torus axis uses 2 of its {ports} links")
fastest = min(LINKS, key=lambda link: 1 / one_axis(link))
slowest = min(LINKS, key=one_axis)
print(
    f"one ring: {fastest} is {one_axis(fastest) / one_axis(slowest):.0f} "
    f"times faster than {slowest}"
)
TIERS = [("TPU v5e ICI", "TPU v5e DCN"), ("TPU v5p ICI", "TPU v5p DCN")]
for ici, dcn in TIERS:
    print(
        f"{ici} against {dcn}: {one_axis(ici) / one_axis(dcn):.0f} times "
        f"along one axis, {one_way(ici) / one_way(dcn):.0f} times over all "
        "links"
    )
