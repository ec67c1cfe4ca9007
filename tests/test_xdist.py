"""The suite's tests are distributed as their xdist groups ask: a group's tests share what its
fixtures make once (a throwaway book built once, one run of every starter), and spread over
several workers each worker makes it again. pytest-xdist 3.8 with pytest 9.2 did exactly that
(https://github.com/pytest-dev/pytest-xdist/issues/1386); this test catches any such regression.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys

import pytest

from jaxbook import ROOT

#: Reads none of the book's content (tests/pass_cache.py): an edited page or snippet does not re-check it.
pytestmark = pytest.mark.inputs()

GROUPED = """\
import os
from pathlib import Path

import pytest


@pytest.mark.xdist_group("shared")
@pytest.mark.parametrize("i", range(8))
def test_grouped(i):
    Path(f"grouped-{i}").write_text(os.environ["PYTEST_XDIST_WORKER"])


@pytest.mark.parametrize("i", range(8))
def test_alone(i):
    Path(f"alone-{i}").write_text(os.environ["PYTEST_XDIST_WORKER"])
"""


def test_a_groups_tests_run_on_one_worker(tmp_path, pytestconfig):
    """Eight tests of one group, among eight of no group, run with the suite's own options
    (pyproject.toml's addopts: two workers, --dist loadgroup): all eight on the same worker."""
    (tmp_path / "test_grouped.py").write_text(GROUPED, encoding="utf-8")
    options = shlex.split(" ".join(pytestconfig.getini("addopts")))
    assert "loadgroup" in options, options
    result = subprocess.run(
        [sys.executable, "-m", "pytest", *options, "-q", "test_grouped.py"],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},  # the options load tests.pass_cache
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    workers = {i: (tmp_path / f"grouped-{i}").read_text() for i in range(8)}
    everyone = set(workers.values()) | {(tmp_path / f"alone-{i}").read_text() for i in range(8)}
    assert len(everyone) == 2, f"the run did not use two workers: {everyone}"
    assert len(set(workers.values())) == 1, f"one group's tests ran on several workers: {workers}"
