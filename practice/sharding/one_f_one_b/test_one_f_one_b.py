"""Tests for A 1F1B Pipeline Schedule."""

import re

import pytest
from hypothesis import example, given, strategies as st

STAGES = st.integers(1, 8)
MICRO = st.integers(1, 16)


def events(rows):
    """{(kind, stage, micro-batch): tick} of a timetable; asserts that each
    cell is "F<m>", "B<m>" or "." and that nothing runs twice."""
    done = {}
    for t, row in enumerate(rows):
        for s, cell in enumerate(row):
            assert isinstance(cell, str), (t, s, cell)
            if cell == ".":
                continue
            found = re.fullmatch(r"([FB])(\d+)", cell)
            assert found, (t, s, cell)
            key = (found[1], s, int(found[2]))
            assert key not in done, f"{key} runs twice"
            done[key] = t
    return done


def greedy(stages, micro):
    """The stated rule, simulated with sets of what each stage has done:
    the oracle (rows of strings)."""
    f_at, b_at = {}, {}  # (stage, micro-batch) -> tick
    rows, t = [], 0
    while (0, micro - 1) not in b_at:
        row = []
        for s in range(stages):
            mine_f = sorted(m for (st_, m) in f_at if st_ == s)
            mine_b = {m for (st_, m) in b_at if st_ == s}
            waiting = [
                m
                for m in mine_f
                if m not in mine_b
                and f_at[s, m] < t
                and (s == stages - 1 or b_at.get((s + 1, m), t) < t)
            ]
            m_next = len(mine_f)
            arrived = s == 0 or f_at.get((s - 1, m_next), t) < t
            held = len(mine_f) - len(mine_b)
            if waiting:
                b_at[s, waiting[0]] = t
                row.append(f"B{waiting[0]}")
            elif m_next < micro and arrived and held < stages - s:
                f_at[s, m_next] = t
                row.append(f"F{m_next}")
            else:
                row.append(".")
        rows.append(row)
        t += 1
    return rows


@pytest.mark.requirement(1)
def test_rows_of_strings(impl):
    for stages, micro in [(1, 1), (3, 5), (8, 2)]:
        rows = impl.one_f_one_b(stages, micro)
        assert isinstance(rows, list) and rows
        for row in rows:
            assert isinstance(row, list) and len(row) == stages, row
            assert all(
                isinstance(c, str) and re.fullmatch(r"[FB]\d+|\.", c)
                for c in row
            ), row


@pytest.mark.requirement(1, 2)
@given(stages=STAGES, micro=MICRO)
@example(stages=1, micro=1)
@example(stages=8, micro=3)
def test_every_step_runs_once(impl, stages, micro):
    done = events(impl.one_f_one_b(stages, micro))
    expected = {
        (kind, s, m)
        for kind in "FB"
        for s in range(stages)
        for m in range(micro)
    }
    assert set(done) == expected


@pytest.mark.requirement(3)
@given(stages=STAGES, micro=MICRO)
@example(stages=2, micro=1)
@example(stages=5, micro=7)
def test_dependencies_wait_a_tick(impl, stages, micro):
    done = events(impl.one_f_one_b(stages, micro))
    for (kind, s, m), t in done.items():
        if kind == "F" and s > 0:
            assert done["F", s - 1, m] < t, (kind, s, m)
        if kind == "B":
            assert done["F", s, m] < t, (kind, s, m)
            if s < stages - 1:
                assert done["B", s + 1, m] < t, (kind, s, m)


@pytest.mark.requirement(4)
@given(stages=STAGES, micro=MICRO)
@example(stages=4, micro=8)
@example(stages=3, micro=16)
def test_each_stage_holds_at_most_stages_minus_s(impl, stages, micro):
    rows = impl.one_f_one_b(stages, micro)
    held = [0] * stages
    for row in rows:
        for s, cell in enumerate(row):
            held[s] += {"F": 1, "B": -1}.get(cell[0], 0)
            assert held[s] <= stages - s, (row, s, held[s])


@pytest.mark.requirement(5)
@given(stages=STAGES, micro=MICRO)
@example(stages=4, micro=8)
@example(stages=2, micro=3)
def test_equals_the_stated_rule(impl, stages, micro):
    assert impl.one_f_one_b(stages, micro) == greedy(stages, micro)


@pytest.mark.requirement(5)
def test_two_stages_three_micro_batches_by_hand(impl):
    expected = [
        ["F0", "."],
        ["F1", "F0"],
        [".", "B0"],
        ["B0", "F1"],
        ["F2", "B1"],
        ["B1", "F2"],
        [".", "B2"],
        ["B2", "."],
    ]
    assert impl.one_f_one_b(2, 3) == expected


@pytest.mark.requirement(6)
@given(stages=STAGES, micro=MICRO)
@example(stages=1, micro=1)
@example(stages=8, micro=1)
@example(stages=1, micro=16)
def test_length_and_bubble(impl, stages, micro):
    """2 (M + S - 1) ticks, each stage idle in 2 (S - 1) of them."""
    rows = impl.one_f_one_b(stages, micro)
    assert len(rows) == 2 * (micro + stages - 1)
    for s in range(stages):
        idle = sum(row[s] == "." for row in rows)
        assert idle == 2 * (stages - 1), (s, idle)


@pytest.mark.requirement(2, 6)
@pytest.mark.parametrize("stages,micro", [(300, 2), (2, 300)])
def test_long_pipelines(impl, stages, micro):
    """Counts past 256, where `is` between equal ints stops being true."""
    rows = impl.one_f_one_b(stages, micro)
    assert len(rows) == 2 * (micro + stages - 1)
    assert len(events(rows)) == 2 * stages * micro


def closed_form(stages, micro):
    """The same timetable from formulas, not from the rule: stage s runs
    forward m at tick s + m while m < S - s (the warm-up), then at 2 m + s,
    each right after the backward that frees its place; backward m reaches
    the last stage at S + 2 m and stage s at 2 S - 1 - s + 2 m. Independent
    of `greedy` and equal to it (checked for up to 19 stages and 29
    micro-batches when this test was written)."""
    rows = [["."] * stages for _ in range(2 * (micro + stages - 1))]
    for s in range(stages):
        for m in range(micro):
            f = s + m if m < stages - s else 2 * m + s
            rows[f][s] = f"F{m}"
            rows[2 * stages - 1 - s + 2 * m][s] = f"B{m}"
    return rows


@pytest.mark.requirement(2, 4, 5)
def test_long_pipeline_fills_stage_0(impl):
    """257 stages and 258 micro-batches: stage 0 reaches its limit of 257
    held micro-batches with one more waiting, a count past 256."""
    stages, micro = 257, 258
    rows = impl.one_f_one_b(stages, micro)
    held = [0] * stages
    for t, row in enumerate(rows):
        assert isinstance(row, list) and len(row) == stages, t
        for s, cell in enumerate(row):
            held[s] += {"F": 1, "B": -1}.get(cell[:1], 0)
            assert held[s] <= stages - s, (t, s, held[s])
    assert rows == closed_form(stages, micro)
