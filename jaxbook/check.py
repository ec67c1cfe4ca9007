"""Check a learner's attempt at a practice problem: ``make check PROBLEM=adamw-from-scratch``.

Runs the problem's tests against ``practice/<section>/<problem>/starter.py`` (the file the learner
edits) and prints one line per test (PASS, FAIL, or ERROR when a test could not even be set up)
and a verdict. ``--impl solution`` checks the reference instead. An attempt that does not import
(a SyntaxError, a NameError at module level, ...) is reported once, with its file and line, and
no test runs.

The problem is named exactly, never by a pattern: ``adamw-from-scratch``, ``adamw_from_scratch``,
``optimizers/adamw-from-scratch``, ``AdamW-From-Scratch``, ``adamw_from_scratch.md`` and
``adamw_from_scratch/`` all name the same problem.
"""

from __future__ import annotations

import argparse
import re
import sys
import traceback
from pathlib import Path

import pytest

from jaxbook import ROOT, runtime
from jaxbook.practice import Summary, forget, load_impl, report

PRACTICE = ROOT / "practice"
PATTERN_CHARS = re.compile(r"[*?\[\]{}]")


class ProblemNameError(ValueError):
    """A PROBLEM that is a pattern, or that names no problem (the message says which)."""


def slug(name: str) -> str:
    return name.strip().lower().replace("-", "_")


def problems(practice: Path = PRACTICE) -> dict[str, Path]:
    """Every problem folder, keyed by its name with underscores."""
    return {p.parent.name: p.parent for p in sorted(practice.glob("*/*/starter.py"))}


def find_problem(name: str, practice: Path = PRACTICE) -> Path:
    """The folder of the problem called ``name``; raises ProblemNameError."""
    if PATTERN_CHARS.search(name):
        raise ProblemNameError(
            f"PROBLEM={name!r} is a pattern; name one problem exactly, e.g. adamw-from-scratch"
        )
    parts = [slug(p) for p in name.strip().removesuffix("/").removesuffix(".md").split("/") if p]
    if parts[:1] == ["practice"]:
        parts = parts[1:]
    known = problems(practice)
    folder = known.get(parts[-1]) if parts and len(parts) <= 2 else None
    if folder is not None and (len(parts) == 1 or parts[0] == folder.parent.name):
        return folder
    listing = "\n  ".join(sorted(f"{p.parent.name}/{n.replace('_', '-')}" for n, p in known.items()))
    raise ProblemNameError(f"no practice problem called {name!r}. Known problems:\n  {listing}")


def import_error(folder: Path, which: str) -> str | None:
    """None if ``folder/<which>.py`` imports; otherwise the error, shown from the attempt's file.

    The file is imported afresh, so a long-lived process (``make practice``'s warm worker) sees
    every save. Importing it here (the tests would import it again from the same cache) means a broken
    attempt is reported once, instead of by every test."""
    path = folder / f"{which}.py"
    forget(folder, which)
    try:
        load_impl(folder, which)
    except Exception as error:  # anything the attempt's module-level code raises
        frames = traceback.extract_tb(error.__traceback__)
        ours = [i for i, frame in enumerate(frames) if Path(frame.filename) == path]
        shown = traceback.format_list(frames[ours[0] :]) if ours else []
        return "".join(["Traceback (most recent call last):\n", *shown] if shown else []) + "".join(
            traceback.format_exception_only(error)
        )
    return None


def pytest_args(folder: Path, impl: str, practice: Path = PRACTICE) -> list[str]:
    """pytest's arguments for a learner's check of ``folder`` against ``impl``."""
    return [
        str(folder),
        f"--impl={impl}",
        "--hypothesis-profile=small",
        "-q",
        "--tb=short",
        "-n",
        "0",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:tests.pass_cache",  # a learner's check runs every test, every time
        "--import-mode=importlib",
        "--rootdir",
        str(practice.parent),
    ]


def run(
    folder: Path, impl: str = "starter", practice: Path = PRACTICE
) -> tuple[int, Summary | None, str | None]:
    """Check ``folder/<impl>.py`` in this process: (pytest's exit code, the Summary, None), or
    (1, None, the error) when it does not import. The runtime must be configured first."""
    error = import_error(folder, impl)
    if error is not None:
        return 1, None, error
    summary = Summary(folder.parent / f"{folder.name}.md")
    code = pytest.main(pytest_args(folder, impl, practice), plugins=[summary])
    return int(code), summary, None


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("problem")
    parser.add_argument("--impl", choices=["starter", "solution"], default="starter")
    parser.add_argument("--practice", type=Path, default=PRACTICE, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    try:
        folder = find_problem(args.problem, args.practice)
    except ProblemNameError as error:
        print(error, file=sys.stderr)
        return 2
    shown = (folder / f"{args.impl}.py").relative_to(args.practice.parent)
    # Before the attempt imports JAX, as the tests' conftest.py requires (with the tests' cache).
    runtime.configure(compilation_cache=ROOT / runtime.TEST_COMPILATION_CACHE)
    code, summary, error = run(folder, args.impl, args.practice)
    if summary is None:
        print(f"{shown} does not import, so no test can run:\n\n{error}", file=sys.stderr)
        print(f"ERROR  {shown}: fix the error above, then run the check again")
        return 1
    report(summary, code, str(shown))
    return code or (1 if summary.collect_errors else 0)


if __name__ == "__main__":
    sys.exit(main())
