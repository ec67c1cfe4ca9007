"""The execution store: each page's snippets executed once, the results kept by content.

A page's cells run in order in one kernel reset to a fresh state, as a reader runs its notebook,
so the page is the unit. Its :class:`~jaxbook.results.PageResult` is kept in
``_build/store/<key>.json`` under :func:`page_key`: the snippets in order with the content of each
and of every project module it imports, the kernel's code (:func:`jaxbook.fingerprint.machinery`)
and its environment (:func:`jaxbook.fingerprint.environment`). Whether an output matches its
``.out`` file is not stored: each consumer decides it (:mod:`jaxbook.verdict`). Writes are
atomic, so a build killed at any moment leaves a complete result or none.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict
from pathlib import Path

from jaxbook import fingerprint, layout
from jaxbook.deps import project_dependencies
from jaxbook.files import write_atomic
from jaxbook.results import CellResult, PageResult


def inputs(snippets: list[Path], root: Path) -> dict[str, str]:
    """``{path under root: sha256}`` of the snippets and every project module they import."""
    found = {}
    for snippet in snippets:
        for path in project_dependencies(snippet.resolve(), root):
            name = path.relative_to(root).as_posix()
            found.setdefault(name, hashlib.sha256(path.read_bytes()).hexdigest())
    return found


def page_key(snippets: list[Path], root: Path) -> tuple[str, dict[str, str]]:
    """The key of a page running ``snippets`` in this order, and the inputs it was made from.
    Raises OSError or SyntaxError when a file cannot be read or parsed."""
    files = inputs(snippets, root)
    order = [s.resolve().relative_to(root).as_posix() for s in snippets]
    material = [order, sorted(files.items()), fingerprint.machinery(), fingerprint.environment()]
    return hashlib.sha256(json.dumps(material).encode()).hexdigest(), files


def folder(root: Path) -> Path:
    """The store of the book at ``root``, or ``$JAXBOOK_STORE`` (the bench's clean build's own)."""
    return Path(os.environ.get("JAXBOOK_STORE") or root / layout.STORE)


def path_of(key: str, root: Path) -> Path:
    return folder(root) / key[:2] / f"{key}.json"


def load(key: str, root: Path) -> PageResult | None:
    """The stored result of ``key``, or None (absent or unreadable: executed again)."""
    try:
        data = json.loads(path_of(key, root).read_text(encoding="utf-8"))
        data["cells"] = [CellResult(**cell) for cell in data["cells"]]
        return PageResult(**data)
    except (OSError, ValueError, TypeError, KeyError):
        return None


def save(result: PageResult, root: Path) -> Path:
    """Keep ``result`` under its key, atomically."""
    path = path_of(result.key, root)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, json.dumps(asdict(result), ensure_ascii=False))
    return path


def durations(root: Path) -> dict[str, float]:
    """Seconds each page last took to execute, by page (for scheduling the longest first)."""
    try:
        return json.loads((folder(root) / "durations.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def record_duration(page: str, seconds: float, root: Path) -> None:
    """Remember how long ``page`` took (a hint: two processes writing at once may lose one
    figure, never corrupt the file)."""
    path = folder(root) / "durations.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, json.dumps({**durations(root), page: round(seconds, 2)}, indent=0, sort_keys=True))
