def schedule(stages, micro):
    """Forward pass of a pipeline: row t lists, per stage, the micro-batch
    it works on at time step t, or "." when it idles.
    -> (micro + stages - 1) rows of `stages` str."""
    return [
        [str(t - s) if 0 <= t - s < micro else "." for s in range(stages)]
        for t in range(micro + stages - 1)
    ]


print("4 stages, 4 micro-batches (rows: time steps, columns: stages)")
for row in schedule(4, 4):
    print(" ".join(row))
print("stages  micro-batches  idle fraction  (p - 1) / (m + p - 1)")
for p, m in [(4, 1), (4, 4), (4, 16), (8, 32)]:
    slots = [cell for row in schedule(p, m) for cell in row]
    idle = slots.count(".") / len(slots)
    print(f"{p:6d} {m:14d} {idle:14.3f} {(p - 1) / (m + p - 1):22.3f}")
