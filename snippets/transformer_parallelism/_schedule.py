"""Pipeline schedules as tables, built by running the stages tick by tick:
each tick, every stage does one forward (F) or one backward (B) of one
micro-batch, or idles; what a stage sends arrives the tick after."""

IDLE, F, B = 0, 1, 2


def schedule(stages, micro, policy):
    """policy "gpipe" (every forward, then every backward) or "1f1b" (at
    most stages - s micro-batches between forward and backward on stage s,
    a ready backward first) -> list of ticks, each a list of (action,
    micro-batch) per stage; (IDLE, 0) when the stage idles."""
    f_done = [[None] * micro for _ in range(stages)]  # tick each F ran
    b_done = [[None] * micro for _ in range(stages)]
    ticks = []
    while any(t is None for t in b_done[0]):
        t, row = len(ticks), []
        for s in range(stages):

            def ready(done, m):
                return done[m] is not None and done[m] < t

            fwd = [
                m
                for m in range(micro)
                if f_done[s][m] is None and (s == 0 or ready(f_done[s - 1], m))
            ]
            bwd = [
                m
                for m in range(micro)
                if b_done[s][m] is None
                and ready(f_done[s], m)
                and (s == stages - 1 or ready(b_done[s + 1], m))
            ]
            live = sum(
                f is not None and b is None
                for f, b in zip(f_done[s], b_done[s])
            )
            if policy == "gpipe":
                go_f = bool(fwd)
            else:
                go_f = bool(fwd) and not bwd and live < stages - s
            if go_f:
                row.append((F, fwd[0]))
                f_done[s][fwd[0]] = t
            elif bwd:
                row.append((B, bwd[0]))
                b_done[s][bwd[0]] = t
            else:
                row.append((IDLE, 0))
        ticks.append(row)
    return ticks
