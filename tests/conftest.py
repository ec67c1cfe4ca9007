"""Shared fixtures: the real site, built once per test session (strict, incremental)."""
from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from jaxbook import ROOT
from jaxbook.build import strict_command

HTML = ROOT / "_build" / "html"


@dataclass
class SiteBuild:
    returncode: int
    stdout: str
    stderr: str
    html: Path


@pytest.fixture(scope="session")
def site() -> SiteBuild:
    """The strict build of the whole book (tests using it share the xdist group "site")."""
    result = subprocess.run(strict_command(), cwd=ROOT, capture_output=True, text=True, timeout=3600)
    return SiteBuild(result.returncode, result.stdout, result.stderr, HTML)


@pytest.fixture(scope="session")
def built_site(site) -> Path:
    """The built HTML folder; fails (never skips) when the build failed."""
    assert site.returncode == 0, site.stdout[-3000:] + site.stderr[-20000:]
    return site.html


def pytest_terminal_summary(terminalreporter):
    """The study plan's figure: how many kept wrong solutions were proven to fail their tests."""
    reports = [r for key in ("passed", "failed") for r in terminalreporter.stats.get(key, [])
               if getattr(r, "when", None) == "call" and "test_wrong_solution_fails" in r.nodeid]
    if reports:
        proven = sum(r.passed for r in reports)
        terminalreporter.write_line(f"practice: {proven} of {len(reports)} kept wrong solutions "
                                    "proven to fail the tests they name")
