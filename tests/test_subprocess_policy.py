"""Deprecations fail the build in the processes a page starts too, and that policy stays out of
the code the reader is shown: the helpers add it (PYTHONWARNINGS, or warning filters in the
training process), outside the lines the pages display."""

from __future__ import annotations

import inspect
import os
import re
import subprocess
import sys
import textwrap

import pytest

from jaxbook import ROOT
from snippets.multiprocess import _launch
from snippets.sharding._process import new_process

WARN = "import warnings\nwarnings.warn('old call', {category})\nprint('went on')\n"
CATEGORIES = ["DeprecationWarning", "FutureWarning"]
#: Build policy a reader must not read as the recipe.
POLICY = re.compile(r"STRICT|error::|-W\b|PYTHONWARNINGS|simplefilter")


@pytest.mark.parametrize("category", CATEGORIES)
def test_new_process_fails_on_a_deprecation_in_the_new_process(category):
    assert new_process(["-c", "print('fine')"]) == "fine"
    with pytest.raises(subprocess.CalledProcessError) as failed:
        new_process(["-c", WARN.format(category=category)])
    assert f"{category}: old call" in failed.value.stderr
    # a caller's environment does not switch the policy off
    with pytest.raises(subprocess.CalledProcessError):
        new_process(["-c", WARN.format(category=category)], PYTHONWARNINGS="ignore")


@pytest.mark.parametrize("category", CATEGORIES)
def test_the_launcher_fails_when_a_process_meets_a_deprecation(tmp_path, category):
    script = tmp_path / "warns.py"
    script.write_text(WARN.format(category=category), encoding="utf-8")
    quiet = tmp_path / "quiet.py"
    quiet.write_text("print('went on')\n", encoding="utf-8")
    assert _launch.run(quiet, [], processes=2, devices=1, timeout=60) == ["went on"] * 2
    with pytest.raises(RuntimeError, match=f"{category}: old call"):
        _launch.run(script, [], processes=2, devices=1, timeout=60)


def test_the_capstones_training_process_turns_deprecations_into_errors():
    """`python -m snippets.capstone._train FOLDER` sets the filters before it trains: run as
    __main__ without its FOLDER, it stops at the missing argument (argparse's exit) with them set."""
    probe = textwrap.dedent(
        """
        import runpy, sys, warnings
        sys.argv = ["_train"]
        try:
            runpy.run_module("snippets.capstone._train", run_name="__main__")
        except SystemExit:
            pass
        for category in (DeprecationWarning, FutureWarning):
            try:
                warnings.warn("old call", category)
            except category:
                print(category.__name__, "is an error")
        """
    )
    env = {**os.environ, "JAX_PLATFORMS": "cpu", "PYTHONPATH": str(ROOT)}
    env.pop("PYTHONWARNINGS", None)
    done = subprocess.run(
        [sys.executable, "-c", probe], env=env, cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.stdout.split("\n")[:2] == [
        "DeprecationWarning is an error",
        "FutureWarning is an error",
    ], done.stdout + done.stderr


def test_the_shown_code_carries_no_build_policy():
    """The capstone's cell and the helpers' functions that pages display hold no warning policy."""
    shown = {
        "snippets/capstone_resume/kill_resume.py": (
            ROOT / "snippets/capstone_resume/kill_resume.py"
        ).read_text(),
        "new_process": inspect.getsource(new_process),  # the function itself, not its wrapper
        "_launch.run": inspect.getsource(_launch.run),
        "_launch._run_all": inspect.getsource(_launch._run_all),
    }
    found = {name: POLICY.findall(text) for name, text in shown.items() if POLICY.search(text)}
    assert not found, found
