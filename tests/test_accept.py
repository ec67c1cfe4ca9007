"""``make outputs`` as contributors use it, on a throwaway book under git: several snippets in one
variable, every importer of a helper (across pages), the last build's failures, what is new
and what changed; and the build's closing summary that points to those commands."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from jaxbook import ROOT
from tests.helpers import Book

pytestmark = [pytest.mark.build, pytest.mark.inputs()]  # throwaway books of its own

SHARED = '"""Shared by the pages alpha and beta."""\n\nSCALE = 2\n'
USES = "from snippets.alpha._shared import SCALE\n\nprint('{name}:', {value} * SCALE)\n"


def make(root: Path, *args: str) -> subprocess.CompletedProcess:
    """``make outputs ARGS`` in the book at ``root``, with the book's Makefile and Python."""
    env = dict(os.environ, JAXBOOK_ROOT=str(root), PYTHONPATH=str(ROOT))
    command = ["make", "-s", "-f", str(ROOT / "Makefile"), f"PY={sys.executable}", "VENV=", "outputs", *args]
    return subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, timeout=600)


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    """Two pages: alpha (one.py alone; two.py and three.py import alpha/_shared.py) and beta
    (four.py imports it too). Every .out is committed and right; the store is filled."""
    root = tmp_path_factory.mktemp("accept") / "book"
    root.mkdir()
    book = Book(root, outputs=True)
    book.snippet("alpha/one.py", "print('one:', 1)\n", "one: 1\n")
    book.snippet("alpha/_shared.py", SHARED)
    for name, value, page in (("two", 2, "alpha"), ("three", 3, "alpha"), ("four", 4, "beta")):
        book.snippet(f"{page}/{name}.py", USES.format(name=name, value=value), f"{name}: {value * 2}\n")
    book.page("alpha", "alpha/one.py", "alpha/two.py", "alpha/three.py")
    book.page("beta", "beta/four.py")
    book.snippet("alpha/orphan.py", "print('orphan')\n")  # no page loads it
    (root / ".gitignore").write_text("_build/\n")
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "book")
    checked = make(root, "COMPARE=1")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.splitlines()[-1] == (
        "all 4 snippet(s) of 2 page(s) hold their contract and match their .out files"
    )
    return root


@pytest.fixture
def book(template, tmp_path):
    """A copy of the template for one test (its store included: nothing is executed again)."""
    root = tmp_path / "book"
    shutil.copytree(template, root, symlinks=True)
    return root


def test_compare_reports_each_difference_in_one_line_and_writes_nothing(book):
    (book / "snippets/alpha/one.out").write_text("one: 9\n")
    result = make(book, "COMPARE=1")
    assert result.returncode != 0
    lines = result.stdout.splitlines()
    assert len(lines) == 2, lines
    assert lines[0].startswith("guide/alpha.md: snippets/alpha/one.py: output differs")
    assert "make outputs SNIPPET=snippets/alpha/one.py" in lines[0]
    assert lines[1] == "1 of 4 snippet(s) fail"
    assert (book / "snippets/alpha/one.out").read_text() == "one: 9\n"
    beta = make(book, "COMPARE=1", "PAGE=guide/beta.md")  # one page: alpha's difference is not run
    assert beta.stdout == "all 1 snippet(s) of 1 page(s) hold their contract and match their .out files\n"


def test_several_snippets_in_one_variable_new_and_changed_files_listed_sorted(book):
    (book / "snippets/alpha/one.py").write_text("print('one:', 11)\n")  # its .out is tracked
    (book / "snippets/alpha/two.out").unlink()
    git(book, "rm", "-q", "--cached", "snippets/alpha/two.out")  # untracked: new
    result = make(book, "SNIPPET=snippets/alpha/two.py snippets/alpha/one.py")
    assert result.returncode == 0, result.stdout + result.stderr
    assert (book / "snippets/alpha/one.out").read_text() == "one: 11\n"
    assert (book / "snippets/alpha/two.out").read_text() == "two: 4\n"
    assert result.stdout.splitlines() == [
        "executing guide/alpha.md (3 snippets)",
        "changed: snippets/alpha/one.out",
        "new: snippets/alpha/two.out",
        "1 new, 1 changed, 0 unchanged expected output(s)",
        "let git diff show the new files: git add -N snippets/alpha/two.out",
        "review: git diff -- '*.out'   (git status lists every new file, snippets included)",
    ]
    # The commands printed do what they say: after them, git diff shows the new file too.
    git(book, "add", "-N", "snippets/alpha/two.out")
    diff = git(book, "diff", "--", "*.out")
    assert "+two: 4" in diff and "-one: 1" in diff and "+one: 11" in diff


def test_a_helper_accepts_every_snippet_that_imports_it_on_every_page(book):
    (book / "snippets/alpha/_shared.py").write_text(SHARED.replace("SCALE = 2", "SCALE = 10"))
    result = make(book, "HELPER=snippets/alpha/_shared.py")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "executing guide/alpha.md" in result.stdout and "executing guide/beta.md" in result.stdout
    for name, value in (("two", 2), ("three", 3), ("four", 4)):
        page = "beta" if name == "four" else "alpha"
        assert (book / f"snippets/{page}/{name}.out").read_text() == f"{name}: {value * 10}\n"
        assert f"changed: snippets/{page}/{name}.out" in result.stdout
    assert (book / "snippets/alpha/one.out").read_text() == "one: 1\n"  # does not import it
    assert "3 changed" in result.stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (["SNIPPET=snippets/alpha/_shared.py"], "a helper has no output of its own; use HELPER="),
        (["HELPER=snippets/alpha/one.py"], "no snippet imports it"),
        (["HELPER=snippets/alpha/_gone.py"], "no such helper file"),
        (["SNIPPET=snippets/alpha/gone.py"], "no such snippet file"),
        (["FAILED=1"], "the last build reported no output"),
        (
            ["SNIPPET=snippets/alpha/orphan.py"],
            "snippets/alpha/orphan.py: guide/alpha.md does not load it, so it has no output yet; add a "
            "cell to guide/alpha.md:\n```{code-cell} ipython3\n:load: ../snippets/alpha/orphan.py\n```",
        ),
    ],
)
def test_a_wrong_selection_names_the_file_and_writes_nothing(book, args, message):
    result = make(book, *args)
    assert result.returncode != 0
    assert message in result.stderr, result.stderr
    assert git(book, "status", "--porcelain", "--", "*.out") == ""


def test_the_build_summary_names_each_problem_the_changed_helper_and_the_commands(book):
    """After a helper edit, the build ends with one line per failing cell (file:line, what, the command
    for it), one line naming the helper with its command, and one that accepts all; then
    ``make outputs FAILED=1`` accepts exactly those outputs."""
    (book / "snippets/alpha/_shared.py").write_text(SHARED.replace("SCALE = 2", "SCALE = 5"))
    (book / "snippets/alpha/one.out").unlink()
    git(book, "rm", "-q", "--cached", "snippets/alpha/one.out")  # a new snippet's output
    env = dict(os.environ, JAXBOOK_ROOT=str(book), PYTHONPATH=str(ROOT))
    from jaxbook.build import strict_command

    built = subprocess.run(
        strict_command(book), cwd=book, env=env, capture_output=True, text=True, timeout=600
    )
    assert built.returncode != 0
    summary = built.stdout[built.stdout.index("4 failing cell(s) in the book:") :].splitlines()
    lines = [line.strip() for line in summary[1:] if line.startswith("  ")]
    findings = [line for line in lines if line.startswith("guide/")]
    assert len(findings) == 4, lines
    for snippet in ("alpha/one", "alpha/two", "alpha/three", "beta/four"):
        (line,) = [p for p in findings if f"snippets/{snippet}.py:" in p]
        assert f"`make outputs SNIPPET=snippets/{snippet}.py`" in line
    (one,) = [p for p in findings if "snippets/alpha/one.py" in p]
    assert one.startswith("guide/alpha.md:") and "no expected output yet" in one
    assert (
        "snippets/alpha/_shared.py changed since 3 of these outputs last matched; if they are right: "
        "`make outputs HELPER=snippets/alpha/_shared.py`"
    ) in lines
    assert "to accept all 4 outputs listed above: `make outputs FAILED=1`" in lines
    assert "diffs and tracebacks: _build/reports/guide/alpha.txt, _build/reports/guide/beta.txt" in lines
    assert "build finished with problems, 4 warnings" in built.stdout + built.stderr
    assert "Traceback" not in built.stdout + built.stderr
    # nothing of other extensions' configuration on the terminal (lines of 1000 characters)
    assert "MdParserConfig(" not in built.stdout and "Using jupyter-cache" not in built.stdout
    assert max(len(line) for line in built.stdout.splitlines()) < 400
    accepted = make(book, "FAILED=1")  # the four outputs the build listed, and no other
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    assert "1 new, 3 changed, 0 unchanged" in accepted.stdout
    assert (book / "snippets/beta/four.out").read_text() == "four: 20\n"
