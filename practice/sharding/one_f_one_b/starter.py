"""A 1F1B Pipeline Schedule.

Build the timetable of a pipeline that trains with one forward, one backward
(1F1B): S stages, one per device, and M micro-batches, each of which runs
forward through stages 0 .. S-1 and then backward through S-1 .. 0.
"""

from __future__ import annotations


def one_f_one_b(stages: int, micro: int) -> list[list[str]]:
    """The 1F1B timetable of `stages` stages and `micro` micro-batches.

    Returns one row per tick, each a list of `stages` strings: "F3" when the
    stage runs the forward of micro-batch 3 in that tick, "B3" its backward,
    "." when it idles. Rows until the last backward of stage 0, no more.

    In a tick each stage does at most one thing, and what a stage sends
    arrives the tick after. So stage s may run:
    - the forward of micro-batch m once stage s - 1 ran it in an earlier
      tick (stage 0: at any time);
    - the backward of m once it ran the forward of m, and stage s + 1 ran
      the backward of m in an earlier tick (the last stage: once its own
      forward of m ran in an earlier tick).
    A stage holds at most stages - s micro-batches that it has run forward
    and not yet backward. Each tick, each stage runs the backward of its
    oldest micro-batch that may run backward, if there is one; otherwise the
    forward of its next micro-batch, if it may and the limit allows;
    otherwise it idles.
    """
    raise NotImplementedError(
        "one_f_one_b: run the ticks, record per stage which tick ran what"
    )
