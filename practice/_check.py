"""Run a practice problem's tests and print one line per test and a verdict.

Shared by ``make check`` (:mod:`jaxbook.check`) and the self-checking notebook of every problem,
which carries this file along: it needs only pytest and the standard library.
"""

from __future__ import annotations

import importlib.util
import itertools
from pathlib import Path

import pytest

SOLVED = "solved: every test passes"
NOT_YET = "not yet"
ERROR = "ERROR: the tests did not run (see above)"
_loads = itertools.count()


class Summary:
    """A pytest plugin that records the outcome of every test: passed, failed or error (set-up)."""

    def __init__(self):
        self.outcomes = {}
        self.collect_errors = []

    def pytest_runtest_logreport(self, report):
        name = report.nodeid.split("::", 1)[-1]
        if report.failed and report.when != "call":
            self.outcomes[name] = "error"
        elif report.when == "call" or report.outcome != "passed":
            self.outcomes.setdefault(name, report.outcome)

    def pytest_collectreport(self, report):
        if report.failed:
            self.collect_errors.append(report.nodeid)


LABELS = {
    "passed": "PASS",
    "failed": "FAIL",
    "error": "ERROR",
    "skipped": "SKIP",
}


def report(summary: Summary, exit_code: int, label: str) -> str:
    """Print ``label``, a PASS/FAIL/ERROR line per test and the verdict; return the verdict.

    ERROR marks a test that could not even be set up; a collection error means no test ran."""
    print(f"\n{label}")
    for name in summary.collect_errors:
        print(f"  ERROR  {name}: the tests could not be collected (see above)")
    for test, outcome in summary.outcomes.items():
        print(f"  {LABELS.get(outcome, outcome.upper()):5}  {test}")
    total = len(summary.outcomes)
    passed = sum(outcome == "passed" for outcome in summary.outcomes.values())
    errors = sum(outcome == "error" for outcome in summary.outcomes.values())
    if summary.collect_errors or (exit_code != 0 and total == 0) or total == 0:
        verdict = ERROR if total == 0 or summary.collect_errors else NOT_YET
    elif exit_code == 0 and passed == total:
        verdict = SOLVED
    else:
        verdict = NOT_YET + (
            f" ({errors} could not be set up: ERROR)" if errors else ""
        )
    print(f"{passed}/{total} tests pass: {verdict}")
    return verdict


class Attempt:
    """A pytest plugin giving the tests' ``impl`` fixture: the module in ``path``, freshly loaded."""

    def __init__(self, path: Path):
        self.path = path

    @pytest.fixture
    def impl(self):
        name = f"attempt_{self.path.stem}_{next(_loads)}"
        spec = importlib.util.spec_from_file_location(name, self.path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module


def check(attempt: str, tests: str) -> None:
    """Run the tests in the folder ``tests`` against the file ``attempt`` (the notebook's check)."""
    folder = Path(tests)
    ini = (
        folder / "pytest.ini"
    )  # so that no configuration found above this folder applies
    ini.write_text("[pytest]\n", encoding="utf-8")
    summary = Summary()
    code = pytest.main(
        [
            str(folder),
            "-c",
            str(ini),
            "--rootdir",
            str(folder),
            "-q",
            "--tb=short",
            "--import-mode=importlib",
            "-p",
            "no:cacheprovider",
        ],
        plugins=[summary, Attempt(Path(attempt).resolve())],
    )
    report(summary, int(code), attempt)
