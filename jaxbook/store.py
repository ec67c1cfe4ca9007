"""The execution store: each page's snippets executed once, the results kept by content.

A page's cells run in order in one kernel, reset to a fresh state first (a reader runs a page's
notebook top to bottom, so a cell may see what earlier cells left in the process, such as JAX's
caches). The unit of execution is therefore the page, and its result is kept under a key made of
everything that can change it (:func:`page_key`):

- the page's snippets in order, and the content of each and of every project module it imports;
- the execution machinery (:data:`MACHINERY`: the kernel, the snippet contract, the runtime; not
  the theme, the accessibility or the publishing code);
- the environment (:func:`environment`): JAX's version and settings, the other variables the
  kernel reads, the processor and the CPU it compiles as, the installed packages (each by its
  ``RECORD``), the Python version.

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

import functools
import hashlib
import json
import os
import platform
import sysconfig
from dataclasses import asdict, dataclass, field
from pathlib import Path

from jaxbook import files, runtime
from jaxbook.deps import project_dependencies
from jaxbook.files import write_atomic

STORE = Path("_build") / "store"
#: The files of the execution machinery: a change to any of them executes every page again.
MACHINERY = (
    "__init__.py",
    "kernel.py",
    "snippet.py",
    "runtime.py",
    "outputs.py",
    "store.py",
    "deps.py",
    "files.py",
)
PACKAGE = Path(__file__).resolve().parent


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


def machinery_digest() -> str:
    """A hash of :data:`MACHINERY` and the book's kernel specification."""
    return _machinery_digest(tuple((PACKAGE / name).stat().st_mtime_ns for name in MACHINERY))


@functools.cache
def _machinery_digest(_mtimes: tuple) -> str:
    """The hash, computed once per process while no machinery file's modification time moves
    (only a cache: the hash itself is of the files' content)."""
    digest = hashlib.sha256()
    for name in (*MACHINERY, "kernels/python3/kernel.json"):
        digest.update(name.encode() + b"\0" + (PACKAGE / name).read_bytes())
    return digest.hexdigest()


def environment() -> str:
    """What of the environment can change an output: JAX and its settings (with the CPU it
    compiles as), the other variables the kernel reads (:func:`jaxbook.runtime.kernel_settings`),
    the processor, the installed packages (:func:`installed`), Python. The build declares it too
    (``jaxbook_environment``): when it changes, Sphinx renders every page again from the results
    of the new key."""
    settings = ";".join(f"{name}={value}" for name, value in runtime.kernel_settings().items())
    return (
        f"{runtime.execution_key()};kernel={settings};cpu={runtime.cpu()};installed={installed()};"
        f"python={platform.python_version()}"
    )


def installed() -> str:
    """A hash of the packages the kernel imports: those of its Python's environment (the user's
    ``PYTHONPATH`` does not reach it, :func:`jaxbook.execute.kernel_environment`), each by its
    ``RECORD``, so that another package, version or build executes every page again (an
    editable one at every build: its code changes without a new install). Read once per process
    while the folders holding them are unchanged."""
    return _installed(tuple((folder, _mtime(folder)) for folder in site_packages()))


def site_packages() -> list[str]:
    """The folders of this Python's environment that hold its installed packages."""
    return sorted({sysconfig.get_path("purelib"), sysconfig.get_path("platlib")})


def _mtime(folder: str) -> int | None:
    try:
        return os.stat(folder).st_mtime_ns
    except OSError:
        return None


@functools.cache
def _installed(folders: tuple[tuple[str, int | None], ...]) -> str:
    found = files.installed(folder for folder, _ in folders)
    names = "\n".join(f"{folder.name} {digest}" for folder, digest in found)
    return hashlib.sha256(names.encode()).hexdigest()[:16]


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
    material = json.dumps([order, sorted(files.items()), machinery_digest(), environment()])
    return hashlib.sha256(material.encode()).hexdigest(), files


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
