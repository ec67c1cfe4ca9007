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


def project_dependencies(path: Path, root: Path = ROOT) -> list[Path]:
    """``path`` and every project file it imports, transitively, sorted (``path`` first)."""
    path = path.resolve()
    seen = {path}
    stack = [path]
    while stack:
        current = stack.pop()
        if not current.is_relative_to(root):
            continue
        for name in imported_names(current, root):
            for file in _module_files(name, root):
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
