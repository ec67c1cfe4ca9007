from practice.sharding.one_f_one_b.solution import one_f_one_b

S, M = 4, 6  # stages, micro-batches
rows = one_f_one_b(S, M)
print(f"{S} stages, {M} micro-batches: {len(rows)} ticks")
for s in range(S):
    print(f"stage {s}:", " ".join(f"{row[s]:2}" for row in rows).rstrip())
for s in range(S):
    held, most = 0, 0
    for row in rows:
        held += {"F": 1, "B": -1}.get(row[s][0], 0)
        most = max(most, held)
    idle = sum(row[s] == "." for row in rows) / len(rows)
    print(
        f"stage {s}: holds at most {most} (S - s = {S - s}), idle {idle:.3f}"
    )
print(f"(S - 1) / (M + S - 1) = {(S - 1) / (M + S - 1):.3f}")
