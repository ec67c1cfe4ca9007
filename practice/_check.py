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
_loads = itertools.count()


class Summary:
    """A pytest plugin that records the outcome of every test."""

    def __init__(self):
        self.outcomes = {}

    def pytest_runtest_logreport(self, report):
        if report.when == "call" or report.outcome != "passed":
            self.outcomes.setdefault(report.nodeid.split("::", 1)[-1], report.outcome)


def report(summary: Summary, exit_code: int, label: str) -> str:
    """Print ``label``, a PASS/FAIL line per test and the verdict; return the verdict."""
    passed = sum(outcome == "passed" for outcome in summary.outcomes.values())
    print(f"\n{label}")
    for test, outcome in summary.outcomes.items():
        print(f"  {'PASS' if outcome == 'passed' else 'FAIL'}  {test}")
    total = len(summary.outcomes)
    verdict = SOLVED if exit_code == 0 and total and passed == total else NOT_YET
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
    ini = folder / "pytest.ini"  # so that no configuration found above this folder applies
    ini.write_text("[pytest]\n", encoding="utf-8")
    summary = Summary()
    code = pytest.main(
        [str(folder), "-c", str(ini), "--rootdir", str(folder), "-q", "--tb=short",
         "--import-mode=importlib", "-p", "no:cacheprovider"],
        plugins=[summary, Attempt(Path(attempt).resolve())])
    report(summary, int(code), attempt)
