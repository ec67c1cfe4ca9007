"""Run a practice problem's tests and report one line per test and a verdict.

``make check`` (:mod:`jaxbook.check`), practice/conftest.py, ``make practice`` (:mod:`jaxbook.study`)
and each problem's notebook (which carries this file and what it imports besides pytest and the
standard library: :mod:`jaxbook.statement` and the Hypothesis seam) use it. A
``wrong/<mistake>.diff`` patches ``solution.py`` below two header lines: the mistake, then
``Breaks: 2, 5. Caught by: test_a, test_b``.
"""

from __future__ import annotations

import importlib.util
import itertools
import linecache
import re
import subprocess
import sys
import tempfile
import textwrap
import traceback
import types
from pathlib import Path

import pytest

from jaxbook.statement import REQUIREMENTS_INTRO, requirements  # noqa: F401 (re-exported)

SOLVED = "solved: every test passes"
NOT_YET = "not yet"
ERROR = "ERROR: the tests did not run (see above)"
_loads = itertools.count()
#: How a test names the requirements it checks: ``@pytest.mark.requirement(2, 5)``.
REQUIREMENT_MARKER = "requirement(*numbers): the statement's requirements this test checks"
#: Hypothesis's examples per property: ``small`` for a learner (a failure shrunk to its smallest
#: example), ``catch`` unshrunk (each wrong solution fails), ``large`` for ``make test``.
PROFILES = {"small": 12, "catch": 12, "large": 60}


def counterexample(longrepr: str) -> str:
    """Hypothesis's smallest failing example in a failure's report, or "" for other failures."""
    lines = [re.sub(r"^E {1,3}", "", line) for line in longrepr.splitlines()]
    starts = [
        i for i, line in enumerate(lines) if re.match(r"(Failing test case|Falsifying .*example):", line)
    ]
    if not starts:
        return ""
    shown = lines[starts[-1] :]
    ends = [i for i, line in enumerate(shown) if line.rstrip() == ")"]
    return "\n".join(shown[: ends[0] + 1] if ends else shown[:1])


def use_profiles(name: str) -> None:
    """Register PROFILES with Hypothesis (if installed) and load ``name``: deterministic, no
    deadline (a first call compiles), no database, no explain phase (it reruns a JAX compile)."""
    try:
        from hypothesis import HealthCheck, Phase, settings
    except ImportError:  # a problem without properties runs without Hypothesis
        return
    from jaxbook.upstream import hypothesis as upstream

    upstream.draw_from_strategies_only()  # tests/test_check.py fails if it stops mattering
    for profile, examples in PROFILES.items():
        skipped = {Phase.explain, Phase.shrink} if profile == "catch" else {Phase.explain}
        settings.register_profile(
            profile,
            max_examples=examples,
            derandomize=True,
            deadline=None,
            phases=[phase for phase in Phase if phase not in skipped],
            database=None,
            # ``impl`` is function-scoped but the same imported module for every example
            suppress_health_check=[
                HealthCheck.too_slow,
                HealthCheck.data_too_large,
                HealthCheck.function_scoped_fixture,
                HealthCheck.differing_executors,
            ],
        )
    settings.load_profile(name)


# -- loading a solution, a starter or a wrong solution ---------------------------------------------


def patched_solution(diff: Path) -> str:
    """``solution.py`` beside ``diff``'s folder with ``diff`` applied by ``git apply``, which
    refuses a patch whose context no longer matches (the error names the patch)."""
    solution = diff.parent.parent / "solution.py"
    with tempfile.TemporaryDirectory() as scratch:
        copy = Path(scratch) / "solution.py"
        copy.write_bytes(solution.read_bytes())
        command = ["git", "apply", "--whitespace=nowarn", str(diff.resolve())]
        done = subprocess.run(command, cwd=scratch, capture_output=True, text=True)
        if done.returncode:
            raise pytest.UsageError(
                f"{diff}: the patch no longer applies to {solution} (edit the patch to the "
                f"solution's new text):\n{done.stderr.strip()}"
            )
        return copy.read_text(encoding="utf-8")


def module_name(folder: Path, which: str) -> str:
    """The name under which :func:`load_impl` caches ``folder/<which>``'s module."""
    return f"practice_{folder.name}_{which.replace('/', '_')}"


def load_impl(folder: Path, which: str):
    """Import ``folder/<which>.py`` (``solution``, ``starter``, or ``wrong/<mistake>``: the patched
    solution, so named in tracebacks) under a unique name; a module that fails is not cached."""
    name = module_name(folder, which)
    if name in sys.modules:
        return sys.modules[name]
    wrong = which.startswith("wrong/")
    path = folder / (f"{which}.diff" if wrong else f"{which}.py")
    if not path.is_file():
        raise pytest.UsageError(f"--impl={which}: no file {path}")
    filename = str(folder / f"{which}.py")
    source = patched_solution(path) if wrong else path.read_text(encoding="utf-8")
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    module = sys.modules[name] = types.ModuleType(name)
    module.__file__ = filename
    try:
        exec(compile(source, filename, "exec", dont_inherit=True), module.__dict__)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def header(path: Path) -> str:
    """A wrong solution's header: the text of ``wrong/<mistake>.diff`` before its patch."""
    text = path.read_text(encoding="utf-8")
    return text[: text.find("\n--- ") + 1] if "\n--- " in text else text


def caught_by(path: Path) -> tuple[str, list[str]]:
    """A wrong solution's mistake (its first line) and the tests named after ``Caught by:``."""
    doc = header(path)
    match = re.search(r"Caught by:(.+(?:\n[ \t]+.+)*)", doc)
    return doc.split("\n", 1)[0].strip(), re.findall(r"\w+", match[1]) if match else []


# -- the report -----------------------------------------------------------------------------------


class Summary:
    """A pytest plugin that records the outcome of every test: passed, failed or error (set-up)."""

    def __init__(self, page: Path):
        """``page``: the statement, whose requirement sentences a failure shows."""
        self.outcomes = {}
        self.collect_errors = []
        self.checks = {}  # test name -> the requirement numbers it names
        self.examples = {}  # test name -> Hypothesis's smallest failing example
        self.requirements = requirements(page) if page.is_file() else {}

    def pytest_configure(self, config):
        config.addinivalue_line("markers", REQUIREMENT_MARKER)

    def pytest_itemcollected(self, item):
        numbers = [n for mark in item.iter_markers("requirement") for n in mark.args]
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


LABELS = {"passed": "PASS", "failed": "FAIL", "error": "ERROR", "skipped": "SKIP"}


def summary_line(summary: Summary, exit_code: int) -> str:
    """The report's last line, such as ``3/5 tests pass: not yet``."""
    outcomes = list(summary.outcomes.values())
    passed, errors = outcomes.count("passed"), outcomes.count("error")
    if summary.collect_errors or not outcomes:
        text = ERROR
    elif exit_code == 0 and passed == len(outcomes):
        text = SOLVED
    else:
        text = NOT_YET + (f" ({errors} could not be set up: ERROR)" if errors else "")
    return f"{passed}/{len(outcomes)} tests pass: {text}"


def checked_requirements(numbers: list[int], sentences: dict[int, str]) -> str:
    """The lines under a failed test naming the requirements it checks, said once for all of them
    (a test tagged 4 and 5 does not tell which one failed, so the report does not say "requirement
    4" alone): ``checks requirement 2: <sentence>``, or ``checks requirements 4 and 5:`` then each
    numbered sentence."""
    numbers = list(dict.fromkeys(numbers))
    if not numbers:
        return ""
    indent = " " * 9
    if len(numbers) == 1:
        sentence = sentences.get(numbers[0])
        return f"{indent}checks requirement {numbers[0]}" + (f": {sentence}" if sentence else "") + "\n"
    named = ", ".join(map(str, numbers[:-1])) + f" and {numbers[-1]}"
    lines = [f"{indent}checks requirements {named}" + (":" if any(n in sentences for n in numbers) else "")]
    lines += [f"{indent}  {n}. {sentences[n]}" for n in numbers if n in sentences]
    return "\n".join(lines) + "\n"


def report(summary: Summary, exit_code: int, label: str) -> None:
    """Print ``label``, a PASS/FAIL/ERROR line per test (ERROR: it could not be set up), under a
    failure the requirements it checks and its smallest failing example, then the verdict."""
    print(f"\n{label}")
    for name in summary.collect_errors:
        print(f"  ERROR  {name}: the tests could not be collected (see above)")
    for test, outcome in summary.outcomes.items():
        print(f"  {LABELS[outcome]:5}  {test}")
        if outcome == "passed":
            continue
        print(checked_requirements(summary.checks.get(test, []), summary.requirements), end="")
        if summary.examples.get(test):
            print(textwrap.indent(summary.examples[test], " " * 9))
    print(summary_line(summary, exit_code))


class Attempt:
    """A pytest plugin giving the tests' ``impl`` fixture: the module in ``path``, freshly loaded."""

    def __init__(self, path: Path):
        self.path = path

    @pytest.fixture
    def impl(self):
        spec = importlib.util.spec_from_file_location(f"attempt_{self.path.stem}_{next(_loads)}", self.path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module


def run_tests(folder: Path, *args: str, plugins=()) -> tuple[int, Summary]:
    """Run the tests in ``folder`` quietly: (pytest's exit code, each test's outcome)."""
    summary = Summary(folder.parent / f"{folder.name}.md")  # the statement, beside the tests
    args = [str(folder), *args, "-q", "--tb=short", "--import-mode=importlib", "-p", "no:cacheprovider"]
    return int(pytest.main(args, plugins=[summary, *plugins])), summary


def check(attempt: str, tests: str) -> None:
    """Run the tests in the folder ``tests`` against the file ``attempt`` (the notebook's check)."""
    folder = Path(tests)
    ini = folder / "pytest.ini"  # so that no configuration found above this folder applies
    ini.write_text("[pytest]\n", encoding="utf-8")
    use_profiles("small")
    args = ["-c", str(ini), "--rootdir", str(folder)]
    code, summary = run_tests(folder, *args, plugins=[Attempt(Path(attempt).resolve())])
    report(summary, code, attempt)


# -- make check: an attempt in the repository, its problem named exactly ---------------------------

PRACTICE = Path(__file__).resolve().parent.parent / "practice"


class ProblemNameError(ValueError):
    """A PROBLEM that is a pattern, or that names no problem (the message says which)."""


def problems(practice: Path = PRACTICE) -> dict[str, Path]:
    """Every problem folder, keyed by its name with underscores."""
    return {p.parent.name: p.parent for p in sorted(practice.glob("*/*/starter.py"))}


def find_problem(name: str, practice: Path = PRACTICE) -> Path:
    """The folder of the problem ``name``: ``adamw-from-scratch``, ``AdamW_From_Scratch``,
    ``optimizers/adamw-from-scratch``, ``adamw_from_scratch.md`` or ``.../`` name the same one,
    a pattern none; raises ProblemNameError."""
    if re.search(r"[*?\[\]{}]", name):
        raise ProblemNameError(
            f"PROBLEM={name!r} is a pattern; name one problem exactly, e.g. adamw-from-scratch"
        )
    path = name.strip().removesuffix("/").removesuffix(".md")
    parts = [p.strip().lower().replace("-", "_") for p in path.split("/") if p]
    parts = parts[1:] if parts[:1] == ["practice"] else parts
    known = problems(practice)
    folder = known.get(parts[-1]) if parts and len(parts) <= 2 else None
    if folder is not None and (len(parts) == 1 or parts[0] == folder.parent.name):
        return folder
    listing = "\n  ".join(sorted(f"{p.parent.name}/{n.replace('_', '-')}" for n, p in known.items()))
    raise ProblemNameError(f"no practice problem called {name!r}. Known problems:\n  {listing}")


def import_error(folder: Path, which: str) -> str | None:
    """None if ``folder/<which>.py`` imports afresh (a long-lived process sees every save);
    otherwise the error, shown from the attempt's file, so that it is reported once, not by every
    test."""
    path = folder / f"{which}.py"
    sys.modules.pop(module_name(folder, which), None)
    try:
        load_impl(folder, which)
    except Exception as error:  # anything the attempt's module-level code raises
        frames = traceback.extract_tb(error.__traceback__)
        ours = next((i for i, frame in enumerate(frames) if Path(frame.filename) == path), len(frames))
        shown = traceback.format_list(frames[ours:])  # none for a SyntaxError: its line is below
        head = ["Traceback (most recent call last):\n"] if shown else []
        return "".join(head + shown + traceback.format_exception_only(error))
    return None


def check_problem(
    folder: Path, impl: str = "starter", practice: Path = PRACTICE
) -> tuple[int, Summary | None, str | None]:
    """Check ``folder/<impl>.py`` in this process: (pytest's exit code, the Summary, None), or
    (1, None, the error) when it does not import. The runtime must be configured first."""
    error = import_error(folder, impl)
    if error is not None:
        return 1, None, error
    # every test, every time: the repository's own test options (its pass cache, its workers) are
    # not the check's, and no result is kept
    args = ["-o", "addopts=", "-ra", f"--impl={impl}", "--hypothesis-profile=small"]
    code, summary = run_tests(folder, *args, "--rootdir", str(practice.parent))
    return code, summary, None
