"""ruff lints and format-checks every Python file (pyproject.toml; 79 columns for shown code:
snippets/ruff.toml, practice/ruff.toml). Fix: ``.venv/bin/ruff check --fix . && .venv/bin/ruff format .``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from jaxbook import ROOT
from tests import pass_cache

#: ruff reads every Python file: the book's, the tests' and the tools'.
pytestmark = pytest.mark.inputs(pass_cache.book, "tests", "tools")

RUFF = Path(sys.executable).with_name("ruff")


@pytest.mark.parametrize("command", [["check"], ["format", "--check"]], ids=["lint", "format"])
def test_ruff(command):
    result = subprocess.run(
        [str(RUFF), *command, "--no-cache", "."], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, f"ruff {' '.join(command)} failed:\n{result.stdout}{result.stderr}"


def test_ruff_config_reaches_shown_code(tmp_path):
    """The 79-column limit applies in snippets/: a line of 99 columns (under the repository's 110)
    is reformatted there."""
    result = subprocess.run(
        [str(RUFF), "format", "--diff", "--stdin-filename", "snippets/x/long.py", "-"],
        cwd=ROOT,
        input="values = [" + ", ".join(["1000"] * 15) + "]\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1 and "+    1000," in result.stdout, result.stdout + result.stderr
