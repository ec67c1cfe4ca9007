"""A 1F1B Pipeline Schedule: reference solution."""

from __future__ import annotations


def one_f_one_b(stages: int, micro: int) -> list[list[str]]:
    """-> rows of `stages` strings "F<m>", "B<m>" or ".", one per tick."""
    forward = [[None] * micro for _ in range(stages)]  # tick each ran
    backward = [[None] * micro for _ in range(stages)]
    rows = []
    for t in range(2 * (micro + stages)):  # more than the 2 (M + S - 1) needed
        if backward[0][micro - 1] is not None:  # stage 0's last backward ran
            break

        def before(done, m):
            """Whether the step was done in an earlier tick."""
            return done[m] is not None and done[m] < t

        row = []
        for s in range(stages):
            ready_b = [
                m
                for m in range(micro)
                if backward[s][m] is None
                and before(forward[s], m)
                and (s == stages - 1 or before(backward[s + 1], m))
            ]
            nxt = sum(f is not None for f in forward[s])  # next forward
            live = nxt - sum(b is not None for b in backward[s])
            can_f = (
                nxt < micro
                and (s == 0 or before(forward[s - 1], nxt))
                and live < stages - s
            )
            if ready_b:
                backward[s][ready_b[0]] = t
                row.append(f"B{ready_b[0]}")
            elif can_f:
                forward[s][nxt] = t
                row.append(f"F{nxt}")
            else:
                row.append(".")
        rows.append(row)
    return rows
