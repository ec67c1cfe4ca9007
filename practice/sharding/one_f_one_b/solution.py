"""A 1F1B Pipeline Schedule: reference solution."""

from __future__ import annotations


def one_f_one_b(stages: int, micro: int) -> list[list[str]]:
    """-> rows of `stages` strings "F<m>", "B<m>" or ".", one per tick."""
    forward = [[None] * micro for _ in range(stages)]  # tick each ran
    backward = [[None] * micro for _ in range(stages)]
    ran_f = [0] * stages  # forwards each stage has run: its next is ran_f[s]
    ran_b = [0] * stages  # backwards each stage has run
    rows = []
    for t in range(2 * (micro + stages)):  # more than the 2 (M + S - 1) needed
        if backward[0][micro - 1] is not None:  # stage 0's last backward ran
            break

        def before(done, m):
            """Whether the step was done in an earlier tick."""
            return done[m] is not None and done[m] < t

        row = []
        for s in range(stages):
            # Backwards leave the last stage in the order of its forwards, and
            # each stage passes them down in the order they came: the oldest
            # micro-batch a stage holds is the only one that may be ready.
            old = ran_b[s]
            ready_b = (
                old < ran_f[s]
                and before(forward[s], old)
                and (s == stages - 1 or before(backward[s + 1], old))
            )
            nxt = ran_f[s]
            live = nxt - ran_b[s]
            can_f = (
                nxt < micro
                and (s == 0 or before(forward[s - 1], nxt))
                and live < stages - s
            )
            if ready_b:
                backward[s][old] = t
                ran_b[s] += 1
                row.append(f"B{old}")
            elif can_f:
                forward[s][nxt] = t
                ran_f[s] += 1
                row.append(f"F{nxt}")
            else:
                row.append(".")
        rows.append(row)
    return rows
