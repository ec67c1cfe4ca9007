"""The execution store: each page's snippets executed once, the results kept by content.

A page's cells run in order in one kernel, reset to a fresh state first (a reader runs a page's
notebook top to bottom, so a cell may see what earlier cells left in the process, such as JAX's
caches). The unit of execution is therefore the page, and its result is kept under a key made of
everything that can change it (:func:`page_key`):

- the page's snippets in order, and the content of each and of every project module it imports;
- the kernel's code (:func:`jaxbook.fingerprint.machinery`: the modules it imports);
- the kernel's environment (:func:`jaxbook.fingerprint.environment`).

``_build/store/<key>.json`` holds a :class:`PageResult`: for each cell, what the reader sees
(Jupyter outputs), the normalised text compared with the ``.out`` file, and what the contract saw
(declared and raised errors, deprecations, a broken contract). Whether an output matches its
``.out`` file is not stored: it depends on the ``.out`` file, and each consumer decides it with
:mod:`jaxbook.compare`. The build, ``make outputs``, ``make upgrade``, the snippet tests and the
bench all read results from here and execute only what is missing (:mod:`jaxbook.execute`).

Writes are atomic (a temporary file, then a rename): a build killed at any moment leaves either a
complete result or none, never one that a later run trusts wrongly.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

from jaxbook import fingerprint, layout
from jaxbook.deps import project_dependencies
from jaxbook.files import write_atomic

STORE = layout.STORE


@dataclass
class CellResult:
    """What one snippet did when its page ran (``snippet``: its path under the book's root)."""

    snippet: str
    outputs: list = field(default_factory=list)  # Jupyter outputs (nbformat 4 dicts), in order
    text: str = ""  # what the page shows, normalised (jaxbook.outputs.normalise)
    declared: str | None = None  # the '# raises:' declaration
    raised: str | None = None  # what it raised
    warnings: list = field(default_factory=list)  # deprecations seen, "Class: message"
    contract: str | None = None  # None: the contract held; else why it broke
    seconds: float = 0.0


@dataclass
class PageResult:
    page: str  # the page's path under the book's root
    key: str
    inputs: dict  # {path: sha256} of every file the page's snippets ran
    cells: list  # [CellResult], one per snippet, in the page's order
    environment: str
    seconds: float = 0.0

    def cell(self, snippet: str) -> CellResult | None:
        return next((c for c in self.cells if c.snippet == snippet), None)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def inputs(snippets: list[Path], root: Path) -> dict[str, str]:
    """``{path under root: sha256}`` of the snippets and every project module they import."""
    found = {}
    for snippet in snippets:
        for path in project_dependencies(snippet.resolve(), root):
            found.setdefault(path.relative_to(root).as_posix(), _sha256(path))
    return found


def page_key(snippets: list[Path], root: Path) -> tuple[str, dict[str, str]]:
    """The key of a page running ``snippets`` in this order, and the inputs it was made from.
    Raises OSError or SyntaxError when a file cannot be read or parsed."""
    files = inputs(snippets, root)
    order = [s.resolve().relative_to(root).as_posix() for s in snippets]
    material = [order, sorted(files.items()), fingerprint.machinery(), fingerprint.environment()]
    return hashlib.sha256(json.dumps(material).encode()).hexdigest(), files


def folder(root: Path) -> Path:
    """The store of the book at ``root``: ``_build/store``, or ``$JAXBOOK_STORE`` (the bench keeps
    its own, so that its clean build starts from nothing)."""
    return Path(os.environ.get("JAXBOOK_STORE") or root / STORE)


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
    """Remember how long ``page`` took (a hint for scheduling: two processes writing at once
    may lose one figure, never corrupt the file)."""
    path = folder(root) / "durations.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    known = durations(root)
    known[page] = round(seconds, 2)
    write_atomic(path, json.dumps(known, indent=0, sort_keys=True))
