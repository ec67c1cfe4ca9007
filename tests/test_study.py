"""``make practice`` (jaxbook/study.py) as a learner uses it: in a real terminal (a pty), on a copy
of the practice tree, with saves of the starter re-checked by the warm worker; and through a pipe."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys

import pytest

from jaxbook import ROOT, study
from tests.test_check import toy_problem
from tools import record_study
from tools.record_study import NONE_PASS, Terminal, practice_copy

#: It reads the practice problems (the plan, the pages' hints, the starters), none of the rest.
pytestmark = pytest.mark.inputs("practice", "tools/record_study.py")

SOME_PASS = re.compile(r"\b[1-9]\d*/\d+ tests pass: not yet")


FAILING = '''import jax.numpy as jnp


def masked_mean(x, mask, axis=-1):
    """Divides by the count even when it is 0."""
    total = jnp.sum(jnp.where(mask, x, 0), axis=axis)
    return total / jnp.sum(mask, axis=axis)
'''


def test_a_learner_studies_in_a_terminal(tmp_path):
    practice = practice_copy(tmp_path)
    folder = practice / "arrays" / "masked_mean"
    starter, untouched = folder / "starter.py", (folder / "starter.py").read_text()
    options = ["--practice", str(practice), "--problem", "masked-mean"]
    term = Terminal([sys.executable, "-m", "jaxbook.study", *options], ROOT)
    try:
        first = term.until("Masked Mean Without Boolean Indexing", NONE_PASS)
        assert "Study plan: 0 passed, 0 attempted, 42 not started (of 42)" in first
        assert "Problem 2 of 42: arrays/masked-mean (not started)" in first
        assert "_build/html/practice/arrays/masked_mean.html" in first
        assert "FAIL 0/3  3. A slice without any True entry gives exactly `0.0`" in first

        starter.write_text(FAILING)  # a save: checked again
        shown = term.until(SOME_PASS)  # it fails on an empty row only
        assert "Study plan: 0 passed, 1 attempted, 41 not started (of 42)" in shown, shown
        assert "FAIL 0/3  3. A slice without any True entry" in shown, shown
        assert "FAIL 2/3  7. The gradient" in shown, shown
        assert "Smallest failing example of test_axis_matches_numpy_loop:" in shown, shown
        assert "[False, False]" in shown, shown

        starter.write_text("def masked_mean(x, mask, axis=-1:\n    return x\n")
        shown = term.until("does not import")
        assert 'masked_mean/starter.py", line 1' in shown and shown.count("SyntaxError") == 1, shown

        term.press("h")
        shown = term.until("Hint: the sum and the count (1/2)")
        assert "jnp.where(mask, x, 0)" in shown and "Hint: the empty row" not in shown

        term.press("r")  # reset: git's starter back, the attempt kept, and checked again
        term.until("Reset practice/arrays/masked_mean/starter.py", NONE_PASS)
        assert starter.read_text() == untouched
        (backup,) = (tmp_path / ".study" / "backups" / "arrays" / "masked_mean").glob("starter.py.bak-*")
        assert "axis=-1:" in backup.read_text()

        shutil.copy(folder / "solution.py", starter)  # a passing attempt: on to the next problem
        shown = term.until(
            "Solved arrays/masked-mean! Next in the plan: arrays/prng-key-splitting", "PRNG Key Splitting"
        )
        shown = term.until("tests pass: not yet")
        assert "Study plan: 1 passed, 0 attempted, 41 not started (of 42)" in shown, shown

        term.press("s")
        term.until("Stable Log-Sum-Exp", "tests pass")
        term.press("l")
        shown = term.until("passed       arrays/masked-mean")
        assert "> not started  arrays/stable-logsumexp" in shown, shown
        term.press("q")
        assert term.exit_code() == 0
    finally:
        term.close()
    progress = json.loads((tmp_path / ".study" / "progress.json").read_text())
    # checked but untouched (prng-key-splitting, stable-logsumexp): not started
    assert progress == {"arrays/masked-mean": "passed"}


def piped(practice, *options):
    """``make practice`` with its output to a pipe (as in CI): the progress table."""
    command = [sys.executable, "-m", "jaxbook.study", "--practice", str(practice), *options]
    done = subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=300
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_without_a_terminal_it_prints_the_progress_and_exits(tmp_path):
    practice = practice_copy(tmp_path)
    study.save_progress(
        tmp_path, {"arrays/masked-mean": "passed", "autodiff/hessian-vector-product": "attempted"}
    )
    lines = piped(practice).splitlines()
    assert lines[0] == "Study plan: 1 passed, 1 attempted, 40 not started (of 42)"
    names = [re.search(r"\b[a-z_]+/[a-z-]+\b", line)[0] for line in lines[1:]]
    assert len(names) == 42 == len(set(names))
    # the plan's order: the sections in practice/index.md's order, each problem in its index's
    assert names[:2] == ["arrays/functional-array-update", "arrays/masked-mean"]
    assert names[-1].startswith("capstone/") and names.index("autodiff/value-and-grad-loss") == 4
    assert lines[2].split()[:2] == ["passed", "arrays/masked-mean"]
    assert "attempted    autodiff/hessian-vector-product" in "\n".join(lines)

    # RECOMPUTE=1: from the starters (the record above is out of date): untouched ones are not started
    (practice / "arrays" / "masked_mean" / "starter.py").write_text(FAILING)
    logsumexp = practice / "arrays" / "stable_logsumexp"
    shutil.copy(logsumexp / "solution.py", logsumexp / "starter.py")
    table = piped(practice, "--recompute")
    assert "Study plan: 1 passed, 1 attempted, 40 not started (of 42)" in table, table
    assert "attempted    arrays/masked-mean" in table and "passed       arrays/stable-logsumexp" in table, (
        table
    )
    assert json.loads((tmp_path / ".study" / "progress.json").read_text()) == {
        "arrays/masked-mean": "attempted",
        "arrays/stable-logsumexp": "passed",
    }


def test_a_check_that_hangs_or_ends_the_worker_is_stopped_and_the_worker_restarted(tmp_path):
    tests = "def test_hangs(impl):\n    while impl.answer() == 42:\n        pass\n"
    practice = toy_problem(tmp_path, "def answer():\n    return 42\n", tests)
    folder = practice / "toys" / "toy_problem"
    worker = study.Worker(practice, limit=3)
    try:
        stopped = worker.check(folder)
        assert stopped["error"].startswith("Stopped: the check did not finish within 3 s"), stopped
        assert worker.process is None
        worker.limit = study.LIMIT  # the checks below must not be stopped on a busy machine
        (folder / "starter.py").write_text("def answer():\n    return 41\n")
        assert worker.check(folder)["status"] == study.PASSED
        (folder / "starter.py").write_text("import os\n\nos._exit(3)\n")  # ends the worker itself
        assert worker.check(folder)["error"] == "The checker ended during the check: see .study/worker.log."
        (folder / "starter.py").write_text("def answer():\n    return 41\n")
        assert worker.check(folder)["status"] == study.PASSED
    finally:
        worker.stop()


def test_each_problems_hints_are_its_pages_hint_dropdowns():
    for problem in study.plan():
        text = problem.page.read_text()
        found = study.hints(problem.page)
        assert len(found) == text.count("{dropdown} Hint:") > 0, problem.name
        assert all(body in text and "```" not in title for title, body in found), problem.name


def test_the_recorded_screen_on_the_study_plan_page_is_the_programs_today():
    """practice/make_practice.svg is what tools/record_study.py records now (so it shows the
    current screen, hints and requirements), and it requests nothing: no script, font or link."""
    committed = record_study.OUT.read_text(encoding="utf-8")
    assert record_study.svg(record_study.record()) == committed, "run .venv/bin/python -m tools.record_study"
    assert "<title>" in committed and not re.search(r"<script|@font-face|url\(|href", committed)
    assert re.findall(r"https?://[^\"]+", committed) == ["http://www.w3.org/2000/svg"]  # its namespace
