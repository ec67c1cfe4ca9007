"""Run a practice problem's tests and print one line per test and a verdict.

Shared by ``make check`` (:mod:`jaxbook.check`) and the self-checking notebook of every problem,
which carries this file along: it needs only pytest and the standard library.
"""

from __future__ import annotations

import importlib.util
import itertools
import re
import textwrap
from pathlib import Path

import pytest

SOLVED = "solved: every test passes"
NOT_YET = "not yet"
ERROR = "ERROR: the tests did not run (see above)"
_loads = itertools.count()
#: The words that end the paragraph before a statement's numbered requirements, on its page
#: ("The tests check each requirement below; ...").
REQUIREMENTS_INTRO = "check each requirement below"
#: How a test names the requirements it checks: ``@pytest.mark.requirement(2, 5)``.
REQUIREMENT_MARKER = (
    "requirement(*numbers): the statement's requirements this test checks"
)
#: Hypothesis profiles: name -> examples per property. ``small``: ``make check`` and the notebook,
#: a few deterministic examples, answering in seconds, and a failure shrunk to its smallest
#: example for the learner; ``catch``: the same examples without shrinking, for the run that
#: proves each kept wrong solution fails (a failure is all it needs); ``large``: ``make test``.
PROFILES = {"small": 12, "catch": 12, "large": 60}


def requirements(page: Path) -> dict[int, str]:
    """The numbered requirements on a statement page: {number: sentence}, in page order.

    They are the ordered list right after the paragraph that holds REQUIREMENTS_INTRO (an
    item may wrap onto indented lines); {} when the page has none."""
    text = page.read_text(encoding="utf-8")
    start = text.find(REQUIREMENTS_INTRO)
    if start < 0:
        return {}
    found: dict[int, str] = {}
    lines = text[start:].split("\n\n", 1)[-1].splitlines()
    for line in lines:
        item = re.match(r"^(\d+)\. (.*)$", line)
        if item:
            found[int(item[1])] = item[2].strip()
        elif found and line.startswith("   ") and line.strip():
            number = list(found)[-1]
            found[number] += " " + line.strip()
        else:
            break
    return found


def counterexample(longrepr: str) -> str:
    """Hypothesis's smallest failing example in a failure's report (``Failing test case:`` or, in
    older versions, ``Falsifying example:``, and its arguments), or "" for other failures."""
    lines = [re.sub(r"^E {1,3}", "", line) for line in longrepr.splitlines()]
    starts = [
        i
        for i, line in enumerate(lines)
        if re.match(r"(Failing test case|Falsifying .*example):", line)
    ]
    if not starts:
        return ""
    shown = lines[starts[-1] :]
    ends = [i for i, line in enumerate(shown) if line.rstrip() == ")"]
    return "\n".join(shown[: ends[0] + 1] if ends else shown[:1])


def use_profiles(name: str) -> None:
    """Register PROFILES with Hypothesis (when it is installed) and load ``name``: deterministic
    examples, no deadline (the first call of a property compiles), no database in the repository.
    The ``impl`` fixture is function-scoped but only hands out an imported module, the same for
    every example: Hypothesis's check against function-scoped fixtures does not apply."""
    try:
        from hypothesis import HealthCheck, Phase, settings
    except ImportError:  # a problem without properties runs without Hypothesis
        return
    for profile, examples in PROFILES.items():
        # no "explain" phase: it reruns a failing property many times (a JAX compile each)
        skipped = (
            {Phase.explain, Phase.shrink}
            if profile == "catch"
            else {Phase.explain}
        )
        settings.register_profile(
            profile,
            max_examples=examples,
            derandomize=True,
            deadline=None,
            phases=[phase for phase in Phase if phase not in skipped],
            database=None,
            suppress_health_check=[
                HealthCheck.too_slow,
                HealthCheck.data_too_large,
                HealthCheck.function_scoped_fixture,
                HealthCheck.differing_executors,
            ],
        )
    settings.load_profile(name)


class Summary:
    """A pytest plugin that records the outcome of every test: passed, failed or error (set-up)."""

    def __init__(self, page: Path | None = None):
        """``page``: the statement page, whose requirement sentences a failure then shows."""
        self.outcomes = {}
        self.collect_errors = []
        self.checks = {}  # test name -> the requirement numbers it names
        self.examples = {}  # test name -> Hypothesis's smallest failing example
        self.requirements = (
            requirements(page) if page and page.is_file() else {}
        )

    def pytest_configure(self, config):
        config.addinivalue_line("markers", REQUIREMENT_MARKER)

    def pytest_itemcollected(self, item):
        numbers = [
            n for mark in item.iter_markers("requirement") for n in mark.args
        ]
        self.checks[item.nodeid.split("::", 1)[-1]] = sorted(set(numbers))

    def pytest_runtest_logreport(self, report):
        name = report.nodeid.split("::", 1)[-1]
        if report.failed and report.when != "call":
            self.outcomes[name] = "error"
        elif report.when == "call" or report.outcome != "passed":
            self.outcomes.setdefault(name, report.outcome)
        if report.failed and report.when == "call":
            self.examples[name] = counterexample(str(report.longrepr))

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
        if outcome == "passed":
            continue
        for number in summary.checks.get(test, []):
            sentence = summary.requirements.get(number)
            print(
                f"         requirement {number}"
                + (f": {sentence}" if sentence else "")
            )
        if summary.examples.get(test):
            print(textwrap.indent(summary.examples[test], " " * 9))
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
    use_profiles("small")
    page = (
        folder.parent / f"{folder.name}.md"
    )  # the statement, when it was written beside the tests
    summary = Summary(page)
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
