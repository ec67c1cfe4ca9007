"""``make check`` (jaxbook/practice.py's main): exact problem names, one clear error for an attempt that
does not import, and ERROR (not FAIL) for a test that could not be set up."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from jaxbook import ROOT, practice, runtime

#: It reads the practice problems (`make check` finds a problem among them), none of the rest of the book.
pytestmark = pytest.mark.inputs("practice")

ADAMW = ROOT / "practice" / "optimizers" / "adamw_from_scratch"


@pytest.mark.parametrize(
    "name",
    [
        "adamw-from-scratch",
        "adamw_from_scratch",
        "AdamW-From-Scratch",
        " adamw-from-scratch ",
        "optimizers/adamw-from-scratch",
        "Optimizers/AdamW_from_scratch",
        "adamw_from_scratch.md",
        "adamw-from-scratch/",
        "optimizers/adamw_from_scratch/",
        "practice/optimizers/adamw_from_scratch.md",
    ],
)
def test_accepted_spellings(name):
    assert practice.find_problem(name) == ADAMW


@pytest.mark.parametrize("name", ["m*", "*", "adamw?from-scratch", "[a]damw-from-scratch", "optimizers/*"])
def test_patterns_are_rejected(name):
    with pytest.raises(practice.ProblemNameError, match="is a pattern; name one problem exactly"):
        practice.find_problem(name)


@pytest.mark.parametrize(
    "name", ["adamw", "arrays/adamw-from-scratch", "a/b/adamw-from-scratch", "", "optimizers"]
)
def test_unknown_names_list_the_problems(name):
    with pytest.raises(practice.ProblemNameError, match="no practice problem called") as error:
        practice.find_problem(name)
    assert "optimizers/adamw-from-scratch" in str(error.value)


def test_pattern_exits_2_with_a_message(capsys):
    assert practice.main(["m*"]) == 2
    assert "is a pattern" in capsys.readouterr().err


def toy_problem(tmp_path, starter, tests):
    """A one-problem practice folder (with the real conftest files) under tmp_path."""
    shutil.copy(ROOT / "conftest.py", tmp_path / "conftest.py")
    practice = tmp_path / "practice"
    folder = practice / "toys" / "toy_problem"
    folder.mkdir(parents=True)
    shutil.copy(ROOT / "practice" / "conftest.py", practice / "conftest.py")
    (folder / "starter.py").write_text(starter, encoding="utf-8")
    (folder / "solution.py").write_text("def answer():\n    return 42\n", encoding="utf-8")
    (folder / "test_toy_problem.py").write_text(tests, encoding="utf-8")
    return practice


def run_check(practice, env=None):
    """``make check`` on the toy problem, in a process of its own (environment ``env``: this one's)."""
    return subprocess.run(
        [sys.executable, "-m", "jaxbook.practice", "toy-problem", "--practice", str(practice)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )


def test_attempt_that_does_not_import_is_reported_once(tmp_path, capsys):
    tree = toy_problem(
        tmp_path,
        "def answer():\n    return 42 +\n",
        "def test_a(impl):\n    assert impl.answer() == 42\n\n\n"
        "def test_b(impl):\n    assert impl.answer() > 0\n",
    )
    assert practice.main(["toy-problem", "--practice", str(tree)]) == 1
    out, err = capsys.readouterr()
    assert "practice/toys/toy_problem/starter.py does not import" in err
    assert 'toy_problem/starter.py", line 2' in err and "SyntaxError" in err
    assert err.count("SyntaxError") == 1, err
    assert "AttributeError" not in out + err
    assert not [line for line in out.splitlines() if line.split()[:1] in (["PASS"], ["FAIL"])]
    assert "ERROR  practice/toys/toy_problem/starter.py" in out


def test_error_at_import_time_shows_the_attempts_line(tmp_path, capsys):
    tree = toy_problem(
        tmp_path,
        "import math\n\nSCALE = math.tau / undefined_name\n",
        "def test_a(impl):\n    assert impl.answer() == 42\n",
    )
    assert practice.main(["toys/toy-problem", "--practice", str(tree)]) == 1
    err = capsys.readouterr().err
    assert 'toy_problem/starter.py", line 3' in err and "NameError" in err
    assert "importlib" not in err, "frames of the import machinery are noise"


def test_setup_errors_are_reported_as_error_not_fail(tmp_path):
    tests = """import pytest


@pytest.fixture
def broken():
    raise RuntimeError("fixture set-up failed")


def test_setup_breaks(impl, broken):
    pass


def test_fails(impl):
    assert impl.answer() == 41


def test_passes(impl):
    assert impl.answer() == 42
"""
    # The attempt imports JAX: make check must configure the runtime before importing it.
    starter = "import jax.numpy as jnp\n\n\ndef answer():\n    return int(jnp.int32(42))\n"
    practice = toy_problem(tmp_path, starter, tests)
    result = run_check(practice, env={k: v for k, v in os.environ.items() if k not in runtime.JAX_ENV})
    assert result.returncode == 1, result.stdout + result.stderr
    lines = [line.split() for line in result.stdout.splitlines()]
    assert ["ERROR", "test_setup_breaks"] in lines, result.stdout
    assert ["FAIL", "test_fails"] in lines, result.stdout
    assert ["PASS", "test_passes"] in lines, result.stdout
    assert "1/3 tests pass: not yet (1 could not be set up: ERROR)" in result.stdout


def test_a_failed_requirement_is_shown_with_its_sentence_and_smallest_counterexample(tmp_path):
    """The learner's report: a failing test names the requirements it checks, with their sentences
    from the statement page, and Hypothesis's smallest failing example (the small profile)."""
    tests = """import pytest
from hypothesis import given, strategies as st


@pytest.mark.requirement(2)
@given(st.integers(0, 1000))
def test_stays_below_the_limit(impl, n):
    assert impl.answer(n) < 100


@pytest.mark.requirement(1)
def test_zero(impl):
    assert impl.answer(0) == 0
"""
    practice = toy_problem(tmp_path, "def answer(n):\n    return n\n", tests)
    (practice / "toys" / "toy_problem.md").write_text(
        "# Toy\n\nThe tests check each requirement below; `make check` names the number of any that "
        "fails.\n\n1. `answer(0)` is 0.\n2. The answer stays below 100\n   for every input.\n",
        encoding="utf-8",
    )
    result = run_check(practice)
    assert result.returncode == 1, result.stdout + result.stderr
    report = result.stdout[result.stdout.index("FAIL") :]
    assert "requirement 2: The answer stays below 100 for every input." in report, result.stdout
    assert "requirement 1" not in report  # its test passed
    assert "test_stays_below_the_limit(\n" in report and "n=100," in report, result.stdout
