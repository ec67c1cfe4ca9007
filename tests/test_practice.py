"""The study plan's tests bite: every untouched starter fails every one of its problem's tests.

(The same tests pass against every reference solution: they are collected from practice/ by the
normal pytest run, with --impl=solution, the default.)
"""
from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from collections import defaultdict

import pytest

from jaxbook import ROOT

PRACTICE = ROOT / "practice"
PROBLEMS = sorted(p.parent for p in PRACTICE.glob("*/*/starter.py"))
SECTIONS = ["arrays", "autodiff", "jit_scan", "vectorization", "optimizers", "attention",
            "decoding", "sharding", "performance"]


def ident(folder):
    return folder.relative_to(PRACTICE).as_posix()


def test_the_study_plan_has_35_problems_in_nine_sections():
    assert len(PROBLEMS) == 35, [ident(p) for p in PROBLEMS]
    assert sorted({p.parent.name for p in PROBLEMS}) == sorted(SECTIONS)


@pytest.mark.parametrize("folder", PROBLEMS, ids=ident)
def test_problem_is_complete(folder):
    name, section = folder.name, folder.parent
    assert (folder / "solution.py").is_file()
    assert (folder / f"test_{name}.py").is_file()
    page = section / f"{name}.md"
    assert page.is_file(), f"no statement page {page.relative_to(ROOT)}"
    text = page.read_text(encoding="utf-8")
    assert f"make check PROBLEM={name.replace('_', '-')}" in text
    assert f"{name}/solution.py" in text, "the page must show the reference solution"
    assert f":load: ../../snippets/practice/{name}.py" in text, "the page must execute the demo"
    assert f"\n{name}\n" in (section / "index.md").read_text(encoding="utf-8"), "not in the section toctree"
    starter = (folder / "starter.py").read_text(encoding="utf-8")
    assert "NotImplementedError" in starter


@pytest.fixture(scope="module")
def starter_outcomes(tmp_path_factory):
    """Run every problem's tests against its starter once; outcomes grouped by problem folder."""
    report = tmp_path_factory.mktemp("starters") / "junit.xml"
    subprocess.run([sys.executable, "-m", "pytest", str(PRACTICE), "--impl=starter", "-q", "-n", "2",
                    "-p", "no:cacheprovider", f"--junitxml={report}", "-o", "junit_family=xunit1"],
                   cwd=ROOT, capture_output=True, text=True, timeout=1800)
    outcomes = defaultdict(list)
    for case in ET.parse(report).getroot().iter("testcase"):
        file = case.get("file") or case.get("classname", "").replace(".", "/") + ".py"
        failed = any(child.tag in ("failure", "error") for child in case)
        outcomes[str((ROOT / file).parent.relative_to(PRACTICE))].append((case.get("name"), failed))
    return outcomes


@pytest.mark.xdist_group("starters")
@pytest.mark.parametrize("folder", PROBLEMS, ids=ident)
def test_untouched_starter_fails_every_test(folder, starter_outcomes):
    outcomes = starter_outcomes[ident(folder)]
    assert len(outcomes) >= 3, f"{ident(folder)}: expected at least 3 tests, found {outcomes}"
    passing = [name for name, failed in outcomes if not failed]
    assert not passing, f"{ident(folder)}: these tests pass without any implementation: {passing}"
