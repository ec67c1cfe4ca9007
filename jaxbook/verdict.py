"""Verdicts: :func:`judge` says whether a cell's result holds its contract and matches its
``.out`` file under its tolerance, and if not, what to tell the contributor (a :class:`Finding`).
The build, the snippet tests and ``make outputs`` all decide here.
"""

from __future__ import annotations

import difflib
import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from jaxbook import compare, layout, outputs
from jaxbook.compare import Tolerance
from jaxbook.deps import project_dependencies
from jaxbook.files import write_atomic
from jaxbook.results import CellResult
from jaxbook.snippet import SnippetError, check_varies, parse_tolerance, source_of


@dataclass(frozen=True)
class Finding:
    """Why a cell fails: ``kind`` is ``contract``, ``missing`` or ``differs``."""

    snippet: str
    kind: str
    summary: str  # one line: what is wrong, and the command that fixes or accepts it
    details: str  # everything else, for the report file
    changed: tuple[str, ...] = ()  # files of the snippet changed since its output last matched


def difference(name: str, expected: str, actual: str, tolerance: Tolerance = compare.DEFAULT) -> str | None:
    """None when ``actual`` matches ``expected`` under ``tolerance``, else the details that fail
    the build: the snippet, which numbers or lines differ, a unified diff, the command that accepts it."""
    reasons = compare.explain(expected, actual, tolerance)
    if not reasons:
        return None
    out = outputs.expected_path(name).as_posix()
    lines = expected.splitlines(keepends=True), actual.splitlines(keepends=True)
    diff = "".join(difflib.unified_diff(*lines, f"{out} (expected)", f"{out} (this build)"))
    why = "".join(f"  {reason}\n" for reason in reasons)
    return (
        f"{name}: output differs from {out} (floats compared with {tolerance}):\n{why}{diff}"
        f"If the new output is right, run `make outputs SNIPPET={name}`, read `git diff`, and commit it."
    )


def _matched_path(name: str, root: Path) -> Path:
    return root / layout.MATCHED / Path(name).with_suffix(".json")


def snippet_inputs(name: str, inputs: dict[str, str], root: Path) -> dict[str, str]:
    """The hashes, among a page's ``inputs``, of the files snippet ``name`` runs."""
    files = [path.relative_to(root).as_posix() for path in project_dependencies(root / name, root)]
    return {file: inputs.get(file, "") for file in files}


def remember_match(name: str, inputs: dict[str, str], root: Path) -> None:
    """Keep the inputs with which snippet ``name``'s output matched its ``.out`` file."""
    path = _matched_path(name, root)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, json.dumps(snippet_inputs(name, inputs, root), indent=0))


def changed_since_match(name: str, inputs: dict[str, str], root: Path) -> list[str]:
    """The files of snippet ``name`` that changed since its output last matched (none known: [])."""
    try:
        before = json.loads(_matched_path(name, root).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return sorted(
        path for path, digest in snippet_inputs(name, inputs, root).items() if before.get(path) != digest
    )


def judge(
    cell: CellResult, root: Path, compare_output: bool = True, inputs: dict[str, str] | None = None
) -> Finding | None:
    """None when ``cell`` held its contract and (``compare_output``) matches its ``.out`` file
    under its tolerance; else the :class:`Finding`. With the page's ``inputs`` (file hashes), a
    match is remembered, and a difference names the files that changed since the last match."""
    name, command = cell.snippet, f"make outputs SNIPPET={cell.snippet}"
    if cell.contract is not None:
        lines = cell.contract.strip().splitlines() or ["broken contract"]
        return Finding(name, "contract", lines[0], cell.contract)
    try:  # a '# varies:' pattern that matches nothing breaks the contract, writing or comparing
        source = source_of(root / name)
        check_varies(source, name, cell.text)
        tolerance = parse_tolerance(source, name)
    except (OSError, SnippetError) as exc:
        return Finding(name, "contract", str(exc), str(exc))
    if not compare_output:
        return None
    expected = outputs.read_expected(root / name)
    if expected is None:
        summary = f"{name}: no expected output yet; write it with `{command}` and review it"
        return Finding(name, "missing", summary, f"{summary}. Its output now:\n{cell.text}")
    details = difference(name, expected, cell.text, tolerance)
    if details is None:
        if inputs is not None:
            remember_match(name, inputs, root)
        return None
    reason = compare.explain(expected, cell.text, tolerance)[0]
    changed = changed_since_match(name, inputs, root) if inputs is not None else []
    since = f"; changed since it last matched: {', '.join(changed)}" if changed else ""
    summary = f"{name}: output differs from its .out ({reason}{since}); if it is right: `{command}`"
    return Finding(name, "differs", summary, details, tuple(changed))


def helper_commands(findings: list[Finding]) -> list[str]:
    """One line per helper module that changed since the outputs of ``findings`` last matched:
    the helper, how many of the outputs it may explain, and the command that accepts them all."""
    counts = Counter(
        path for finding in findings for path in finding.changed if Path(path).name.startswith("_")
    )
    return [
        f"{path} changed since {count} of these outputs last matched; if they are right: "
        f"`make outputs HELPER={path}`"
        for path, count in sorted(counts.items())
    ]
