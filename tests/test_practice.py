"""The study plan's tests bite: every untouched starter fails every one of its problem's tests,
and every kept wrong solution (``practice/<section>/<problem>/wrong/<mistake>.diff``, a patch to the
problem's ``solution.py``) applies and fails the tests its header names.

(The same tests pass against every reference solution: they are collected from practice/ by the
normal pytest run, with --impl=solution, the default.)
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections import defaultdict

import pytest

from jaxbook import ROOT, pages
from jaxbook.practice import caught_by, header, patched_solution, requirements
from tests import pass_cache

PRACTICE = ROOT / "practice"
PROBLEMS = sorted(p.parent for p in PRACTICE.glob("*/*/starter.py"))
SECTIONS = (
    "arrays autodiff jit_scan vectorization optimizers attention decoding sharding performance capstone"
).split()


def breaks(path):
    """The requirement numbers after a wrong solution's ``Breaks:``."""
    match = re.search(r"^Breaks:([^.\n]+)", header(path), re.MULTILINE)
    return [int(n) for n in re.findall(r"\d+", match[1])] if match else []


def ident(folder):
    return folder.relative_to(PRACTICE).as_posix()


def wrong_files(folder):
    return sorted((folder / "wrong").glob("*.diff"))


WRONG = [path for folder in PROBLEMS for path in wrong_files(folder)]
MIN_WRONG_PER_PROBLEM = 2
MAX_CHANGED_LINES = 20  # a wrong solution is the solution with one mistake, not a rewrite


def wrong_ident(path):
    return path.relative_to(PRACTICE).with_suffix("").as_posix()


def inner_workers() -> str:
    """xdist workers of a practice run a test starts: none inside an xdist worker, whose siblings
    keep every core busy already, two otherwise."""
    return "0" if os.environ.get("PYTEST_XDIST_WORKER") else "2"


def run_practice_tests(impl, report):
    """Run every problem's tests in one pytest subprocess; the junit XML lands in ``report``."""
    command = [sys.executable, "-m", "pytest", str(PRACTICE), f"--impl={impl}", "--hypothesis-profile=catch"]
    command += ["-q", "-n", inner_workers(), "-p", "no:cacheprovider", f"--junitxml={report}"]
    subprocess.run(
        [*command, "-o", "junit_family=xunit1"], cwd=ROOT, capture_output=True, text=True, timeout=1800
    )
    for case in ET.parse(report).getroot().iter("testcase"):
        file = case.get("file") or case.get("classname", "").replace(".", "/") + ".py"
        props = {p.get("name"): p.get("value") for p in case.iter("property")}
        kinds = {child.tag for child in case} & {"failure", "error", "skipped"}
        yield (ROOT / file).parent, props.get("impl"), case.get("name"), kinds


def test_the_study_plan_has_42_problems_in_ten_sections():
    assert len(PROBLEMS) == 42, [ident(p) for p in PROBLEMS]
    assert sorted({p.parent.name for p in PROBLEMS}) == sorted(SECTIONS)


@pytest.mark.parametrize("folder", PROBLEMS, ids=ident)
def test_problem_is_complete(folder):
    name, section = folder.name, folder.parent
    assert (folder / "solution.py").is_file()
    assert (folder / f"test_{name}.py").is_file()
    page = section / f"{name}.md"
    assert page.is_file(), f"no statement page {page.relative_to(ROOT)}"
    text = page.read_text(encoding="utf-8")
    only = {t.info: t.content for t in pages.tokens(text) if t.info.startswith("{only}")}
    assert f"make check PROBLEM={name.replace('_', '-')}" in only.get("{only} html", ""), (
        "make check: the site's"
    )
    assert "{get-the-code}" in only.get("{only} html", ""), "the site's page must say how to get the code"
    assert "{only} notebook" in only, "the page must say how to check an attempt in the notebook"
    assert f"{name}/solution.py" in text, "the page must show the reference solution"
    assert f":load: ../../snippets/practice/{name}.py" in text, "the page must execute the demo"
    assert f"\n{name}\n" in (section / "index.md").read_text(encoding="utf-8"), "not in the section toctree"
    starter = (folder / "starter.py").read_text(encoding="utf-8")
    assert "NotImplementedError" in starter


def statement(folder):
    return folder.parent / f"{folder.name}.md"


def named_requirements(test_file):
    """{test function: the numbers on its ``@pytest.mark.requirement(...)``} for every test of a
    problem's test file (read from its source: nothing is imported)."""
    tree = ast.parse(test_file.read_text(encoding="utf-8"))
    found = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
            found[node.name] = sorted(
                arg.value
                for decorator in node.decorator_list
                if isinstance(decorator, ast.Call)
                and ast.unparse(decorator.func).endswith("mark.requirement")
                for arg in decorator.args
                if isinstance(arg, ast.Constant)
            )
    return found


@pytest.mark.parametrize("folder", PROBLEMS, ids=ident)
def test_every_requirement_is_tested_and_every_test_names_one(folder):
    """The statement numbers its requirements 1, 2, ...; each test names the ones it checks."""
    numbered = requirements(statement(folder))
    assert numbered, (
        f"{ident(folder)}.md: no numbered requirements (a paragraph with 'The tests check each "
        f"requirement below', then an ordered list)"
    )
    assert list(numbered) == list(range(1, len(numbered) + 1)), (
        f"{ident(folder)}.md: requirements must be numbered 1, 2, ... in order, found {list(numbered)}"
    )
    tests = named_requirements(folder / f"test_{folder.name}.py")
    naming_none = [name for name, numbers in tests.items() if not numbers]
    assert not naming_none, f"{ident(folder)}: tests naming no requirement: {naming_none}"
    unknown = {name: n for name, numbers in tests.items() for n in numbers if n not in numbered}
    assert not unknown, f"{ident(folder)}: tests naming requirements the statement lacks: {unknown}"
    untested = sorted(set(numbered) - {n for numbers in tests.values() for n in numbers})
    assert not untested, f"{ident(folder)}: requirements no test names: {untested}"


@pytest.mark.parametrize("folder", PROBLEMS, ids=ident)
def test_every_requirement_is_broken_by_a_kept_wrong_solution(folder):
    """At least MIN_WRONG_PER_PROBLEM wrong solutions, and each requirement has one that breaks it,
    caught by a test that names it (test_wrong_solution_fails_the_tests_it_names proves they fail)."""
    names = [p.stem for p in wrong_files(folder)]
    assert len(names) >= MIN_WRONG_PER_PROBLEM, (
        f"{ident(folder)}: keep at least {MIN_WRONG_PER_PROBLEM} plausible wrong answers in "
        f"{ident(folder)}/wrong/ (found {names})"
    )
    numbered = requirements(statement(folder))
    tests = named_requirements(folder / f"test_{folder.name}.py")
    shown = set()
    for path in wrong_files(folder):
        broken = breaks(path)
        assert broken, f"{wrong_ident(path)}: the header needs a line 'Breaks: <requirement numbers>'"
        unknown = [n for n in broken if n not in numbered]
        assert not unknown, f"{wrong_ident(path)}: 'Breaks' names requirements the statement lacks: {unknown}"
        catching = [name for name in caught_by(path)[1] if set(tests.get(name, [])) & set(broken)]
        assert catching, (
            f"{wrong_ident(path)}: no test on its 'Caught by' line names a requirement it breaks {broken}"
        )
        shown |= {n for name in catching for n in set(tests[name]) & set(broken)}
    unbroken = sorted(set(numbered) - shown)
    assert not unbroken, (
        f"{ident(folder)}: no kept wrong solution breaks (and is caught on) requirements {unbroken}"
    )


@pytest.fixture(scope="module")
def starter_outcomes(tmp_path_factory):
    """Run every problem's tests against its starter once; outcomes grouped by problem folder."""
    report = tmp_path_factory.mktemp("starters") / "junit.xml"
    outcomes = defaultdict(list)
    for folder, _, name, kinds in run_practice_tests("starter", report):
        outcomes[ident(folder)].append((name, bool(kinds & {"failure", "error"})))
    return outcomes


@pytest.mark.xdist_group("starters")
@pytest.mark.inputs.with_args(pass_cache.problem)
@pytest.mark.parametrize("folder", PROBLEMS, ids=ident)
def test_untouched_starter_fails_every_test(folder, starter_outcomes):
    outcomes = starter_outcomes[ident(folder)]
    assert len(outcomes) >= 3, f"{ident(folder)}: expected at least 3 tests, found {outcomes}"
    passing = [name for name, failed in outcomes if not failed]
    assert not passing, f"{ident(folder)}: these tests pass without any implementation: {passing}"


@pytest.fixture(scope="module")
def wrong_outcomes(tmp_path_factory):
    """Run every problem's tests against each of its wrong solutions, in one subprocess: each
    test only against the wrong solutions whose docstring names it (see practice/conftest.py).

    Maps ``wrong/<mistake>.py`` to {test function: set of outcomes}, an outcome being "failure"
    (the test ran and failed), "error" (set-up failed), "skipped" or "passed"."""
    report = tmp_path_factory.mktemp("wrong") / "junit.xml"
    outcomes = defaultdict(lambda: defaultdict(set))
    for folder, impl, name, kinds in run_practice_tests("wrong", report):
        outcomes[folder / f"{impl}.diff"][name.split("[", 1)[0]] |= kinds or {"passed"}
    return outcomes


def changed_lines(path):
    """The lines a wrong solution's patch removes or adds."""
    patch = path.read_text(encoding="utf-8")
    body = patch[patch.index("\n--- ") + 1 :].splitlines()
    return [line for line in body if line[:1] in "+-" and line[:3] not in ("+++", "---")]


@pytest.mark.xdist_group("wrong")
@pytest.mark.inputs.with_args(pass_cache.problem)
@pytest.mark.parametrize("path", WRONG, ids=wrong_ident)
def test_wrong_solution_fails_the_tests_it_names(path, wrong_outcomes):
    mistake, named = caught_by(path)
    assert mistake, f"{wrong_ident(path)}: the header's first line must state the mistake"
    assert named, f"{wrong_ident(path)}: the header needs a line 'Caught by: test_a, test_b'"
    patched = patched_solution(path).splitlines()
    long = [n for n, line in enumerate(patched, 1) if len(line) > 79]
    assert not long, f"{wrong_ident(path)}: lines longer than 79 columns once applied: {long}"
    changed = changed_lines(path)
    assert 0 < len(changed) <= MAX_CHANGED_LINES, (
        f"{wrong_ident(path)}: {len(changed)} changed lines against solution.py; a wrong solution "
        f"is the solution with one mistake"
    )
    outcomes = wrong_outcomes[path]
    unknown = [name for name in named if name not in outcomes]
    assert not unknown, f"{wrong_ident(path)}: 'Caught by' names tests that do not exist: {unknown}"
    not_failing = {name: sorted(outcomes[name]) for name in named if "failure" not in outcomes[name]}
    assert not not_failing, (
        f"{wrong_ident(path)}: 'Caught by' names tests that do not fail for it: {not_failing} "
        f"(set-up errors do not count)"
    )


@pytest.mark.parametrize("folder", PROBLEMS, ids=ident)
def test_mutation_report_measures_the_current_solution(folder):
    """``make mutation PROBLEM=...`` (tools/mutation.py) writes mutation.json beside the solution;
    it must name the sha256 of the solution.py there now, and list no mutant both as equivalent
    without a reason."""
    report = folder / "mutation.json"
    if not report.is_file():
        pytest.skip(f"{ident(folder)}: no mutation report yet (make mutation PROBLEM={folder.name})")
    data = json.loads(report.read_text(encoding="utf-8"))
    current = hashlib.sha256((folder / "solution.py").read_bytes()).hexdigest()
    assert data["solution_sha256"] == current, (
        f"{ident(folder)}/mutation.json measured another solution.py: run "
        f"make mutation PROBLEM={folder.name} again"
    )
    unexplained = [m["id"] for m in data["equivalent"] if not m.get("reason", "").strip()]
    assert not unexplained, f"{ident(folder)}: equivalent mutants without a reason: {unexplained}"
