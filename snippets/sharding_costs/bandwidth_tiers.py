from snippets.sharding_costs._hardware import LINKS, one_way

GRADIENTS = 2 * 7e9  # bytes: the bf16 gradients of a 7-billion-parameter model
n = 8  # devices in the all-reduce

print(
    f"all-reduce of {GRADIENTS / 1e9:.0f} GB over {n} devices: each sends "
    f"2(n-1)/n x {GRADIENTS / 1e9:.0f} GB = "
    f"{2 * (n - 1) / n * GRADIENTS / 1e9:.1f} GB"
)
print(f"{'link':22} {'GB/s one way':>12} {'seconds':>8}  source")
for link, (_, _, source) in LINKS.items():
    seconds = 2 * (n - 1) / n * GRADIENTS / one_way(link)
    print(f"{link:22} {one_way(link) / 1e9:12.2f} {seconds:8.3f}  {source}")
fastest = min(LINKS, key=lambda link: 1 / one_way(link))
slowest = min(LINKS, key=one_way)
print(
    f"{fastest} is {one_way(fastest) / one_way(slowest):.0f} times "
    f"faster than {slowest}"
)
