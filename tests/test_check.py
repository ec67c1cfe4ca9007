"""``make check`` (jaxbook/check.py): exact problem names, one clear error for an attempt that
does not import, and ERROR (not FAIL) for a test that could not be set up."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from jaxbook import ROOT, check, practice, runtime

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
    assert check.main(["m*"]) == 2
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
        [sys.executable, "-m", "jaxbook.check", "toy-problem", "--practice", str(practice)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )


@pytest.mark.parametrize(
    "starter, line, error",
    [
        ("def answer():\n    return 42 +\n", 2, "SyntaxError"),
        ("import math\n\nSCALE = math.tau / undefined_name\n", 3, "NameError"),
    ],
)
def test_an_attempt_that_does_not_import_is_reported_once_at_its_line(tmp_path, capsys, starter, line, error):
    tests = "def test_a(impl):\n    assert impl.answer() == 42\n\n\ndef test_b(impl):\n    assert impl.answer() > 0\n"
    assert check.main(["toy-problem", "--practice", str(toy_problem(tmp_path, starter, tests))]) == 1
    out, err = capsys.readouterr()
    assert "practice/toys/toy_problem/starter.py does not import" in err
    assert f'toy_problem/starter.py", line {line}' in err and err.count(error) == 1, err
    assert "jaxbook/practice.py" not in err and "importlib" not in err, "the checker's frames are noise"
    assert "AttributeError" not in out + err
    assert not [line for line in out.splitlines() if line.split()[:1] in (["PASS"], ["FAIL"])]
    assert "ERROR  practice/toys/toy_problem/starter.py" in out


def test_the_report_names_each_outcome_and_a_failures_requirements_and_smallest_example(tmp_path):
    """What a learner reads: PASS, FAIL, or ERROR for a test that could not be set up; under a
    failure, the requirements its test names, with their sentences from the statement, and
    Hypothesis's smallest failing example (the small profile); the verdict."""
    tests = """import pytest
from hypothesis import given, strategies as st


@pytest.fixture
def broken():
    raise RuntimeError("fixture set-up failed")


def test_setup_breaks(impl, broken):
    pass


@pytest.mark.requirement(2)
@given(st.integers(0, 1000))
def test_stays_below_the_limit(impl, n):
    assert impl.answer(n) < 100


@pytest.mark.requirement(1)
def test_zero(impl):
    assert impl.answer(0) == 0
"""
    # The attempt imports JAX: make check must configure the runtime before importing it.
    starter = "import jax.numpy as jnp\n\n\ndef answer(n):\n    return int(jnp.int32(n))\n"
    practice = toy_problem(tmp_path, starter, tests)
    (practice / "toys" / "toy_problem.md").write_text(
        "# Toy\n\nThe tests check each requirement below; `make check` names the number of any that "
        "fails.\n\n1. `answer(0)` is 0.\n2. The answer stays below 100\n   for every input.\n",
        encoding="utf-8",
    )
    result = run_check(practice, env={k: v for k, v in os.environ.items() if k not in runtime.JAX_ENV})
    assert result.returncode == 1, result.stdout + result.stderr
    report = result.stdout[
        result.stdout.rindex("\npractice/toys/toy_problem/starter.py\n") :
    ]  # after pytest's
    lines = [line.split() for line in report.splitlines()]
    assert ["ERROR", "test_setup_breaks"] in lines, result.stdout
    assert ["FAIL", "test_stays_below_the_limit"] in lines and ["PASS", "test_zero"] in lines, result.stdout
    assert "checks requirement 2: The answer stays below 100 for every input." in report, result.stdout
    assert "requirement 1" not in report  # its test passed
    assert "test_stays_below_the_limit(\n" in report and "n=100," in report, result.stdout
    assert report.endswith("\n1/3 tests pass: not yet (1 could not be set up: ERROR)\n"), result.stdout


def test_a_failure_of_a_test_checking_several_requirements_names_them_once():
    """A test tagged 4 and 5 cannot tell which one failed: the report says the test checks both,
    once, and never "requirement 4" alone, which a learner would read as requirement 4 failing."""
    from jaxbook.practice import checked_requirements

    sentences = {1: "It is jitted.", 4: "The decay may be traced.", 5: "The program does not grow."}
    assert checked_requirements([4, 5], sentences) == (
        "         checks requirements 4 and 5:\n"
        "           4. The decay may be traced.\n"
        "           5. The program does not grow.\n"
    )
    assert checked_requirements([1, 4, 5], sentences).splitlines()[0].split() == [
        "checks",
        "requirements",
        "1,",
        "4",
        "and",
        "5:",
    ]
    assert checked_requirements([4], sentences) == "         checks requirement 4: The decay may be traced.\n"
    assert checked_requirements([7], {}) == "         checks requirement 7\n"
    assert checked_requirements([], sentences) == ""


DRAWS = """
import sys
from hypothesis import given, strategies as st
from jaxbook import practice

if sys.argv[1] == "profile":
    practice.use_profiles("large")
else:  # Hypothesis's own derandomized draws
    from hypothesis import settings
    settings.register_profile("plain", derandomize=True, database=None, max_examples=200)
    settings.load_profile("plain")


def draws() -> list:
    seen = []
    given(st.floats(allow_nan=False), st.integers())(lambda x, n: seen.append((x, n)))()
    return seen


first = draws()
sys.path.insert(0, sys.argv[2])
import many_constants  # noqa: E402, F401 -- a local module, as a problem's solution is
print(first == draws())
"""


@pytest.mark.parametrize("profile", ["profile", "plain"])
def test_a_propertys_examples_do_not_depend_on_what_else_was_imported(tmp_path, profile):
    # Hypothesis draws constants from local modules, so a test's examples would depend on which
    # tests its worker ran before it (CI drew other examples than this machine).
    constants = "".join(f"C{i} = {i * 7919 + 0.5}\nN{i} = {i * 104729}\n" for i in range(200))
    (tmp_path / "many_constants.py").write_text(constants, encoding="utf-8")
    script = [sys.executable, "-c", DRAWS, profile, str(tmp_path)]
    run = subprocess.run(script, capture_output=True, text=True, cwd=ROOT)
    assert run.stdout.strip() == str(profile == "profile"), run.stderr
