"""Which project files a snippet depends on: itself and every project module it imports.

The build notes these files as Sphinx dependencies of the page, so editing a snippet or a helper
module it imports (directly or through another helper) re-executes exactly the pages that use it.
Imports are read statically (``ast``), so nothing is executed in the Sphinx process.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

from jaxbook import ROOT


def _module_files(name: str, root: Path) -> list[Path]:
    """Files executed by ``import name`` that live in the project: each package's
    ``__init__.py`` on the way and the module itself."""
    parts = name.split(".")
    found = []
    for i in range(1, len(parts) + 1):
        base = root.joinpath(*parts[:i])
        for candidate in (base.with_suffix(".py"), base / "__init__.py"):
            if candidate.is_file():
                found.append(candidate)
        if not base.is_dir():
            break  # nothing deeper in the project (jax.numpy, os.path)
    return found


def _statements(body: list):
    """Every statement of ``body``, including those nested in functions, classes and blocks
    (an import is a statement: expressions need not be searched)."""
    for node in body:
        yield node
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            inner = getattr(node, field, None)
            if isinstance(inner, list):
                yield from _statements(inner)


def _package_of(path: Path, root: Path) -> list[str]:
    return list(path.relative_to(root).parent.parts)


def imported_names(path: Path, root: Path = ROOT) -> set[str]:
    """Dotted names of the modules ``path`` imports (absolute form; ``from x import y`` also
    yields ``x.y`` in case ``y`` is a submodule). Raises SyntaxError for invalid code."""
    return set(_imported_names(path.read_text(encoding="utf-8"), path, root))


@functools.cache
def _imported_names(text: str, path: Path, root: Path) -> frozenset[str]:
    """:func:`imported_names` of ``path`` holding ``text`` (each file is parsed once per process,
    whatever the number of pages and extensions that depend on it)."""
    tree = ast.parse(text, filename=str(path))
    names: set[str] = set()
    for node in _statements(tree.body):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                package = _package_of(path, root)
                package = package[: len(package) - (node.level - 1)]
                base = ".".join(package + ([node.module] if node.module else []))
            else:
                base = node.module or ""
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
        try:
            current.relative_to(root)
        except ValueError:
            continue
        for name in imported_names(current, root):
            for file in _module_files(name, root):
                file = file.resolve()
                if file not in seen and ".venv" not in file.parts:
                    seen.add(file)
                    stack.append(file)
    return [path] + sorted(seen - {path})
