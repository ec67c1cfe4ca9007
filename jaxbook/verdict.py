"""Verdicts: whether a cell's result holds its contract and matches its expected output, and
what to tell the contributor when it does not.

:func:`verdict` turns a :class:`jaxbook.results.CellResult` into ``None`` (it holds) or a
:class:`Finding`: one line for the terminal, at the page and line of the cell (the snippet, what
is wrong, and the one command that fixes or accepts it), and the details (the contract's message,
or which numbers differ and a unified diff) for the report file. The build, the snippet tests and
``make outputs`` decide the same way, here.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass
from pathlib import Path

from jaxbook import compare, layout, outputs
from jaxbook.compare import Tolerance
from jaxbook.deps import project_dependencies
from jaxbook.files import write_atomic
from jaxbook.results import CellResult
from jaxbook.snippet import SnippetError, parse_tolerance, source_of


@dataclass(frozen=True)
class Finding:
    """Why a cell fails: ``kind`` is ``contract``, ``missing`` or ``differs``."""

    snippet: str
    kind: str
    summary: str  # one line: what is wrong, and the command that fixes or accepts it
    details: str  # everything else, for the report file
    changed: tuple[str, ...] = ()  # files of the snippet changed since its output last matched


def accept_command(name: str) -> str:
    """The one command that accepts ``name``'s real output (``name``: ``snippets/...py``)."""
    return f"make outputs SNIPPET={name}"


def difference(
    name: str, expected: str | None, actual: str, tolerance: Tolerance = compare.DEFAULT
) -> str | None:
    """``None`` when ``actual`` matches ``expected`` (:func:`jaxbook.compare.matches`: text
    exactly, floats within ``tolerance``), else the message that fails the build: it names the
    snippet, says which numbers or lines differ, shows a unified diff and gives the command that
    accepts it."""
    out = Path(name).with_suffix(".out").as_posix()
    if expected is None:
        return (
            f"{name}: no expected output: {out} does not exist. Run `{accept_command(name)}`, "
            "read the new file, and commit it."
        )
    reasons = compare.explain(expected, actual, tolerance)
    if not reasons:
        return None
    diff = "".join(
        difflib.unified_diff(
            expected.splitlines(keepends=True),
            actual.splitlines(keepends=True),
            fromfile=f"{out} (expected)",
            tofile=f"{out} (this build)",
        )
    )
    why = "".join(f"  {reason}\n" for reason in reasons)
    return (
        f"{name}: output differs from {out} (floats compared with {tolerance}):\n{why}{diff}"
        f"If the new output is right, run `{accept_command(name)}`, read `git diff`, and "
        "commit it."
    )


def _matched_path(name: str, root: Path) -> Path:
    return root / layout.MATCHED / Path(name).with_suffix(".json")


def snippet_inputs(name: str, inputs: dict[str, str], root: Path) -> dict[str, str]:
    """The hashes, among a page's ``inputs``, of the files snippet ``name`` runs."""
    files = project_dependencies(root / name, root)
    return {
        path.relative_to(root).as_posix(): inputs.get(path.relative_to(root).as_posix(), "") for path in files
    }


def remember_match(name: str, inputs: dict[str, str], root: Path) -> None:
    """Keep the inputs with which snippet ``name``'s output matched its ``.out`` file."""
    path = _matched_path(name, root)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, json.dumps(snippet_inputs(name, inputs, root), indent=0))


def changed_since_match(name: str, inputs: dict[str, str], root: Path) -> list[str]:
    """The files of snippet ``name`` that changed since its output last matched (none known:
    an empty list)."""
    try:
        before = json.loads(_matched_path(name, root).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    now = snippet_inputs(name, inputs, root)
    return sorted(path for path, digest in now.items() if before.get(path) != digest)


def verdict(
    cell: CellResult, root: Path, compare_output: bool = True, inputs: dict[str, str] | None = None
) -> Finding | None:
    """``None`` when ``cell`` held its contract and (``compare_output``) matches its ``.out`` file
    under its tolerance; else the :class:`Finding`. With the page's ``inputs`` (file hashes), a
    match is remembered, and a difference names the files that changed since the last match."""
    name = cell.snippet
    if cell.contract is not None:
        first = cell.contract.strip().splitlines()[0] if cell.contract.strip() else "broken contract"
        return Finding(name, "contract", first, cell.contract)
    if not compare_output:
        return None
    path = root / name
    expected = outputs.read_expected(path)
    command = accept_command(name)
    if expected is None:
        return Finding(
            name,
            "missing",
            f"{name}: no expected output yet; write it with `{command}` and review it",
            difference(name, None, cell.text) or "",
        )
    try:
        tolerance = parse_tolerance(source_of(path), name)
    except (OSError, SnippetError) as exc:
        return Finding(name, "contract", str(exc), str(exc))
    message = difference(name, expected, cell.text, tolerance)
    if message is None:
        if inputs is not None:
            remember_match(name, inputs, root)
        return None
    reasons = compare.explain(expected, cell.text, tolerance)
    changed = changed_since_match(name, inputs, root) if inputs is not None else []
    since = f"; changed since it last matched: {', '.join(changed)}" if changed else ""
    return Finding(
        name,
        "differs",
        f"{name}: output differs from its .out ({reasons[0]}{since}); if it is right: `{command}`",
        message,
        tuple(changed),
    )


def helper_commands(findings: list[Finding], root: Path) -> list[str]:
    """One line per helper module that changed since the outputs of ``findings`` last matched:
    the helper, how many of the outputs it may explain, and the command that accepts them all."""
    counts: dict[str, int] = {}
    for finding in findings:
        for path in finding.changed:
            if Path(path).name.startswith("_"):
                counts[path] = counts.get(path, 0) + 1
    return [
        f"{path} changed since {count} of these outputs last matched; if they are right: "
        f"`make outputs HELPER={path}`"
        for path, count in sorted(counts.items())
    ]
