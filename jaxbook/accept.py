"""``make outputs``: write the expected outputs (``snippets/**/*.out``) from the real results,
executing only the pages the store lacks, and list what is new and changed; ``COMPARE=1``
compares instead. Takes make's variables as make spells them: ``python -m jaxbook.accept
SNIPPET="a.py b.py" PAGE=... HELPER=... FAILED=1 COMPARE=1`` (docs/contributing.md).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from jaxbook import book_root, layout, outputs, pages, verdict
from jaxbook.deps import importers
from jaxbook.execute import Executor
from jaxbook.snippet import parse_tolerance, source_of

#: ``make outputs``'s variables; a non-empty FAILED or COMPARE turns it on.
VARIABLES = ("SNIPPET", "PAGE", "HELPER", "FAILED", "COMPARE")


def variables(argv: list[str]) -> dict[str, str]:
    """``{name: value}`` of the ``NAME=value`` arguments, every variable present."""
    given = dict(arg.partition("=")[::2] for arg in argv)
    unknown = [name for name in given if name not in VARIABLES]
    if unknown:
        takes = " ".join(f"{name}=" for name in VARIABLES)
        raise ValueError(f"{', '.join(unknown)}: not a variable of make outputs ({takes})")
    return {name: given.get(name, "") for name in VARIABLES}


def select(root: Path, given: dict[str, str]) -> dict[str, list[Path]]:
    """``{page: [snippets]}`` named by the variables (nothing named: every snippet)."""
    named = given["SNIPPET"].split()
    for name in given["HELPER"].split():
        helper = (root / name).resolve()
        if not helper.is_file():
            raise ValueError(f"{name}: no such helper file")
        users = importers(helper, root)
        if not users:
            raise ValueError(f"{name}: no snippet imports it")
        named += [s.relative_to(root).as_posix() for s in users]
    if given["FAILED"]:  # the snippets the last build reported as differing from, or missing, their .out
        report = root / layout.BUILD / layout.FAILURES
        try:
            failed = json.loads(report.read_text(encoding="utf-8"))["snippets"]
        except (OSError, ValueError, KeyError):
            failed = []
        if not failed:
            raise ValueError("the last build reported no output that differs or is missing")
        named += failed
    return pages.selection(root, given["PAGE"].split(), named)


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
    root = book_root()
    try:
        given = variables(sys.argv[1:] if argv is None else argv)
        groups = select(root, given)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    compare = bool(given["COMPARE"])
    written, unchanged, failed = [], 0, 0
    with Executor(root) as executor:
        for page, snippets in sorted(groups.items()):
            if executor.cached(root / page) is None:  # only what takes time is announced
                print(
                    f"executing {page} ({len(pages.read(root / page).snippets(existing=True))} snippets)",
                    flush=True,
                )
            result = executor.page(root / page)
            for snippet in snippets:
                name = snippet.relative_to(root).as_posix()
                cell = result.cell(name)
                finding = verdict.judge(cell, root, compare_output=compare, inputs=result.inputs)
                if finding is not None:
                    failed += 1
                    print(f"{page}: {finding.summary}")
                elif not compare:
                    if outputs.write_expected(snippet, cell.text, parse_tolerance(source_of(snippet), name)):
                        written.append(outputs.expected_path(snippet))
                    else:
                        unchanged += 1
                    verdict.remember_match(name, result.inputs, root)
    total = sum(len(s) for s in groups.values())
    if compare and failed:
        print(f"{failed} of {total} snippet(s) fail")
    elif compare:
        print(
            f"all {total} snippet(s) of {len(groups)} page(s) hold their contract and match their .out files"
        )
    else:
        print(written_report(sorted(written), new_files(written, root), unchanged, root), end="")
    return 1 if failed else 0


def written_report(written: list[Path], fresh: set[Path], unchanged: int, root: Path) -> str:
    """What ``make outputs`` wrote, new files included, and the commands that review it: a new
    file is untracked, so ``git diff`` shows it only after ``git add -N`` (intent to add)."""
    names = {path: path.relative_to(root).as_posix() for path in written}
    lines = [f"{'new' if path in fresh else 'changed'}: {names[path]}" for path in written]
    lines.append(
        f"{len(fresh)} new, {len(written) - len(fresh)} changed, {unchanged} unchanged expected output(s)"
    )
    if fresh:
        lines.append(
            f"let git diff show the new files: git add -N {' '.join(names[p] for p in written if p in fresh)}"
        )
    if written:
        lines.append("review: git diff -- '*.out'   (git status lists every new file, snippets included)")
    return "".join(line + "\n" for line in lines)


if __name__ == "__main__":
    sys.exit(main())
