"""Which project files a snippet depends on: itself and every project module it imports, read
statically (``ast``: nothing is executed), so that editing a snippet or a helper it imports,
directly or through another, re-executes exactly the pages that use it."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

from jaxbook import ROOT, pages


def _module_files(name: str, root: Path) -> list[Path]:
    """Files executed by ``import name`` that live in the project: each package's
    ``__init__.py`` on the way and the module itself."""
    parts = name.split(".")
    found = []
    for i in range(1, len(parts) + 1):
        base = root.joinpath(*parts[:i])
        found += [f for f in (base.with_suffix(".py"), base / "__init__.py") if f.is_file()]
        if not base.is_dir():
            break  # nothing deeper in the project (jax.numpy, os.path)
    return found


def imported_names(path: Path, root: Path = ROOT) -> set[str]:
    """Dotted names of the modules ``path`` imports anywhere in it (absolute form; ``from x import
    y`` also yields ``x.y`` in case ``y`` is a submodule). Raises SyntaxError for invalid code."""
    return set(_imported_names(path.read_text(encoding="utf-8"), path, root))


@functools.cache
def _imported_names(text: str, path: Path, root: Path) -> frozenset[str]:
    """:func:`imported_names` of ``path`` holding ``text`` (each file parsed once per process)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(text, filename=str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative to the package of ``path``, ``level - 1`` folders up
                base = ".".join([*path.relative_to(root).parts[: -node.level], *filter(None, [base])])
            if base:
                names.add(base)
            names.update(f"{base}.{alias.name}".lstrip(".") for alias in node.names)
    return frozenset(names)


def script_folder(path: Path, root: Path = ROOT) -> Path | None:
    """The folder where a bare import of the snippet at ``path`` also looks (its own, as for
    ``python FILE``: :func:`jaxbook.snippet.script_folder`); None for a file outside snippets/."""
    path = path.resolve()
    return path.parent if path.is_relative_to(root.resolve() / "snippets") else None


def script_imports(path: Path, root: Path = ROOT) -> list[Path]:
    """The project files that the snippet at ``path`` (or a module it imports) imports by a bare
    name from the snippet's own folder (``from _model import data``), sorted."""
    folder = script_folder(path, root)
    if folder is None:
        return []
    files = project_dependencies(path, root)[1:]
    names = [
        name
        for current in [path, *files]
        if current.is_relative_to(root)
        for name in imported_names(current, root)
    ]
    return [
        file
        for file in files
        if file.parent == folder
        and any(
            _module_files(name, folder) == [file] for name in names if name.partition(".")[0] == file.stem
        )
    ]


def project_dependencies(path: Path, root: Path = ROOT) -> list[Path]:
    """``path`` and every project file it imports, transitively, sorted (``path`` first): by
    package path from ``root``, or by bare name from the snippet's own folder (:func:`script_folder`)."""
    path = path.resolve()
    folders = [root] + [f for f in [script_folder(path, root)] if f is not None]
    seen = {path}
    stack = [path]
    while stack:
        current = stack.pop()
        if not current.is_relative_to(root):
            continue
        for name in imported_names(current, root):
            for file in (f for folder in folders for f in _module_files(name, folder)):
                file = file.resolve()
                if file not in seen and ".venv" not in file.parts:
                    seen.add(file)
                    stack.append(file)
    return [path] + sorted(seen - {path})


def importers(helper: Path, root: Path) -> list[Path]:
    """Every snippet of the book that imports ``helper``, directly or through another module."""
    return [
        snippet
        for page in pages.book_pages(root)
        for snippet in pages.read(page).snippets(existing=True)
        if helper in project_dependencies(snippet, root)[1:]
    ]
