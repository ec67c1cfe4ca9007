"""Which project files a snippet depends on: itself and every project module it imports.

The build notes these files as Sphinx dependencies of the page, so editing a snippet or a helper
module it imports (directly or through another helper) re-executes exactly the pages that use it.
Imports are read statically (``ast``), so nothing is executed in the Sphinx process.
"""

from __future__ import annotations

import ast
import hashlib
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
    return found


def _package_of(path: Path, root: Path) -> list[str]:
    return list(path.relative_to(root).parent.parts)


def imported_names(path: Path, root: Path = ROOT) -> set[str]:
    """Dotted names of the modules ``path`` imports (absolute form; ``from x import y`` also
    yields ``x.y`` in case ``y`` is a submodule). Raises SyntaxError for invalid code."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
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
    return names


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


def code_version(*paths: Path, root: Path = ROOT) -> int:
    """A number that changes whenever ``paths`` or a project module they import changes.

    Each of the book's Sphinx extensions returns the version of its own code as its
    ``env_version``: Sphinx starts from a fresh environment when one differs from the last build's,
    so an edit to the machinery re-executes and rewrites every page, as an edit to a snippet does
    for the pages that load it."""
    digest = hashlib.sha256()
    for path in paths:
        for file in project_dependencies(path, root):
            digest.update(file.relative_to(root).as_posix().encode() + b"\0" + file.read_bytes())
    return int(digest.hexdigest()[:15], 16)
