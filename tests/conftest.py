"""Shared fixtures: the real site, built once per test session (strict, incremental).

In a full run (``make test``: no paths, ``-k`` or ``-m`` given) the xdist controller builds the site
first, before the workers start, with every core (``sphinx -j auto``). The workers then read its
result: the site and browser tests look at the pages, and each per-snippet test finds the build's
record of its snippet instead of running it again. In any other run, the first test that needs the
site builds it; a file lock makes the other workers wait for that build and use it too. So no test
needs an xdist group to share the site.
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

import pytest

from jaxbook import ROOT
from jaxbook.build import strict_command

HTML = ROOT / "_build" / "html"
RESULT = ROOT / "_build" / "test-site.json"
LOCK = ROOT / "_build" / "test-site.lock"
#: Set by the controller once the site is built; the workers inherit it.
BUILT = "JAXBOOK_TEST_SITE"


@dataclass
class SiteBuild:
    returncode: int
    stdout: str
    stderr: str
    html: Path


def build_site(run: str | None = None) -> SiteBuild:
    """Run the strict build of the book and keep its result in RESULT."""
    result = subprocess.run(strict_command(), cwd=ROOT, capture_output=True, text=True, timeout=3600)
    build = SiteBuild(result.returncode, result.stdout, result.stderr, HTML)
    RESULT.parent.mkdir(parents=True, exist_ok=True)
    RESULT.write_text(json.dumps({**asdict(build), "html": str(HTML), "run": run}), encoding="utf-8")
    return build


def load_site(path: Path = RESULT) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def as_build(data: dict) -> SiteBuild:
    return SiteBuild(data["returncode"], data["stdout"], data["stderr"], Path(data["html"]))


def is_full_run(config) -> bool:
    """`make test` and CI: every test, nothing selected away."""
    return (
        config.args_source == pytest.Config.ArgsSource.TESTPATHS
        and not config.option.keyword
        and not config.option.markexpr
        and not config.option.collectonly
    )


def pytest_configure(config):
    if hasattr(config, "workerinput") or not is_full_run(config) or os.environ.get(BUILT):
        return
    print(
        "building the site first, on every core (the snippet, site and browser tests use it)",
        file=sys.stderr,
        flush=True,
    )
    build_site(run="controller")
    os.environ[BUILT] = str(RESULT)


@pytest.fixture(scope="session")
def site() -> SiteBuild:
    """The strict build of the whole book, built once for the whole test run."""
    if os.environ.get(BUILT):
        return as_build(load_site(Path(os.environ[BUILT])))
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    LOCK.parent.mkdir(parents=True, exist_ok=True)
    with open(LOCK, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one worker builds; the others wait and use its build
        if run and RESULT.is_file():
            data = load_site()
            if data.get("run") == run:
                return as_build(data)
        return build_site(run)


@pytest.fixture(scope="session")
def built_site(site) -> Path:
    """The built HTML folder; fails (never skips) when the build failed."""
    assert site.returncode == 0, site.stdout[-3000:] + site.stderr[-20000:]
    return site.html


def pytest_terminal_summary(terminalreporter):
    """The study plan's figure: how many kept wrong solutions were proven to fail their tests."""
    reports = [
        r
        for key in ("passed", "failed")
        for r in terminalreporter.stats.get(key, [])
        if getattr(r, "when", None) == "call" and "test_wrong_solution_fails" in r.nodeid
    ]
    if reports:
        proven = sum(r.passed for r in reports)
        terminalreporter.write_line(
            f"practice: {proven} of {len(reports)} kept wrong solutions proven to fail the tests they name"
        )
