"""``make outputs``: write the expected outputs (``snippets/**/*.out``) from the real results.

``python -m jaxbook.accept`` takes the results of the pages from the execution store, executing
only the pages that are not there (:mod:`jaxbook.execute`), and writes each selected snippet's
``.out`` file, unless the file already matches within the snippet's tolerance (a run on another
CPU leaves it as it is). It then lists what is new and what changed, and how to review both.

Which snippets (any combination; nothing named means every snippet of the book):

- ``--snippet snippets/jit/jit_basic.py`` (repeat it, or give several paths in one argument);
- ``--page guide/jit.md``: every snippet the page loads;
- ``--helper snippets/training/_model.py``: every snippet that imports the helper, directly or not;
- ``--failed``: every snippet whose output differed or was missing in the last build.

``--compare`` writes nothing: it reports each snippet that breaks its contract or does not match
its ``.out`` file, one line each, and says so when all match (the build's verdict, without Sphinx).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from jaxbook import book_root, layout, outputs, pages, verdict
from jaxbook.deps import project_dependencies
from jaxbook.execute import Executor
from jaxbook.snippet import parse_tolerance


def last_failures(root: Path) -> list[str]:
    """The snippets the last build reported as differing from, or missing, their ``.out``."""
    try:
        return json.loads((root / layout.BUILD / layout.FAILURES).read_text(encoding="utf-8"))["snippets"]
    except (OSError, ValueError, KeyError):
        return []


def importers(helper: Path, root: Path) -> list[Path]:
    """Every snippet of the book that imports ``helper``, directly or through another module."""
    found = []
    for page in pages.book_pages(root):
        for snippet in pages.loaded_snippets(page):
            if snippet.is_file() and helper in project_dependencies(snippet, root)[1:]:
                found.append(snippet)
    return found


def select(root: Path, args) -> dict[str, list[Path]]:
    """``{page: [snippets]}`` named by the options (see the module docstring)."""
    named = [name for value in args.snippet for name in value.split()]
    for value in args.helper:
        for name in value.split():
            helper = (root / name).resolve()
            if not helper.is_file():
                raise ValueError(f"{name}: no such helper file")
            users = importers(helper, root)
            if not users:
                raise ValueError(f"{name}: no snippet imports it")
            named += [s.relative_to(root).as_posix() for s in users]
    if args.failed:
        failed = last_failures(root)
        if not failed:
            raise ValueError("the last build reported no output that differs or is missing")
        named += failed
    page_names = [name for value in args.page for name in value.split()]
    if (args.helper or args.failed) and not named and not page_names:
        return {}
    return pages.selection(root, page_names, named)


def new_files(paths: list[Path], root: Path) -> set[Path]:
    """Those of ``paths`` that git does not track yet (all of them outside a git checkout)."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "--", *map(str, paths)], cwd=root, capture_output=True, text=True, check=True
        ).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        return set(paths)
    return set(paths) - {(root / name).resolve() for name in listed}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="make outputs",
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawTextHelpFormatter,
    )
    parser.add_argument("--page", action="append", default=[], help="every snippet of this page")
    parser.add_argument(
        "--snippet", action="append", default=[], help="this snippet (several: space-separated)"
    )
    parser.add_argument(
        "--helper", action="append", default=[], help="every snippet that imports this helper"
    )
    parser.add_argument("--failed", action="store_true", help="every output the last build reported")
    parser.add_argument("--compare", action="store_true", help="compare instead of writing")
    args = parser.parse_args(argv)
    root = book_root()
    try:
        groups = select(root, args)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    status, written, unchanged, failed = 0, [], 0, 0
    with Executor(root) as executor:
        for page, snippets in sorted(groups.items()):
            if executor.cached(root / page) is None:  # only what takes time is announced
                print(f"executing {page} ({len(executor.snippets(root / page))} snippets)", flush=True)
            result = executor.page(root / page)
            for snippet in snippets:
                name = snippet.relative_to(root).as_posix()
                cell = result.cell(name)
                problem = verdict.verdict(cell, root, compare_output=args.compare, inputs=result.inputs)
                if problem is not None:
                    status, failed = 1, failed + 1
                    print(f"{page}: {problem.summary}")
                    continue
                if args.compare:
                    unchanged += 1
                    continue
                tolerance = parse_tolerance(snippet.read_text(encoding="utf-8"), name)
                if outputs.write_expected(snippet, cell.text, tolerance):
                    written.append(outputs.expected_path(snippet))
                else:
                    unchanged += 1
                verdict.remember_match(name, result.inputs, root)
    total = sum(len(s) for s in groups.values())
    if args.compare:
        if status == 0:
            print(
                f"all {total} snippet(s) of {len(groups)} page(s) hold their contract and match their .out files"
            )
        else:
            print(f"{failed} of {total} snippet(s) fail")
        return status
    print(written_report(sorted(written), new_files(written, root), unchanged, root), end="")
    return status


def written_report(written: list[Path], fresh: set[Path], unchanged: int, root: Path) -> str:
    """What ``make outputs`` wrote, new files included, and the commands that review it: a new
    file is untracked, so ``git diff`` shows it only after ``git add -N`` (intent to add)."""

    def name(path: Path) -> str:
        return path.relative_to(root).as_posix()

    lines = [f"{'new' if p in fresh else 'changed'}: {name(p)}" for p in written]
    changed = len(written) - len(fresh)
    lines.append(f"{len(fresh)} new, {changed} changed, {unchanged} unchanged expected output(s)")
    if written:
        if fresh:
            lines.append(
                f"let git diff show the new files: git add -N {' '.join(name(p) for p in written if p in fresh)}"
            )
        lines.append("review: git diff -- '*.out'   (git status lists every new file, snippets included)")
    return "".join(line + "\n" for line in lines)


if __name__ == "__main__":
    sys.exit(main())
