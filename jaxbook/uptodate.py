"""Nothing to do: the strict build is skipped while the site it made last is what it would make now.

After a strict build succeeds, :func:`record` keeps beside the site the key of everything the build
reads (:func:`inputs_key`: the book's files, the machinery, the environment, the command line) and
each file of the site with its size and modification time. The next strict build does nothing
while both hold (:func:`holds`). The record is deleted before Sphinx starts and written only after
it succeeded, with the inputs as they were when it started: a failed or stopped build is never
taken for a good one.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from fnmatch import fnmatch
from pathlib import Path

from jaxbook import fingerprint, layout, pages
from jaxbook.files import files_digest, write_atomic

#: Untracked files the book's code can read (it lists folders and finds its pages): any in a
#: folder, the pages and Python files at the top; a log or scratch notes at the top are not.
UNTRACKED = ("*/*", "*.py", *pages.PAGE_PATTERNS)


def book_files(root: Path) -> tuple[Path, ...]:
    """The files of the book at ``root`` that its build and tests can read: those git tracks and
    the :data:`UNTRACKED` ones it does not ignore; outside a git checkout, every file but the
    generated ones."""
    try:
        others = _git_files(root, "--others", "--exclude-standard")
        files = {root / n for n in _git_files(root, "--cached")}
        files |= {root / n for n in others if any(fnmatch(n, p) for p in UNTRACKED)}
    except (OSError, subprocess.CalledProcessError):  # not a git checkout
        files = {p for p in root.rglob("*") if not _generated(p.relative_to(root))}
    return tuple(sorted(p for p in files if p.is_file()))


def _generated(path: Path) -> bool:
    """Whether ``path`` is in a folder of generated files, or one named with a dot (caches, .git)."""
    return any(
        f in (layout.BUILD.name, "node_modules", "__pycache__") or f.startswith(".") for f in path.parts[:-1]
    )


def _git_files(root: Path, *options: str) -> list[str]:
    listed = subprocess.run(["git", "ls-files", "-z", *options], cwd=root, capture_output=True, check=True)
    return [os.fsdecode(name) for name in listed.stdout.split(b"\0") if name]


def inputs_key(root: Path, command: list[str], environ=None) -> str:
    """One hash of everything the strict build of the book at ``root`` by ``command`` reads."""
    context = {
        "files": files_digest(book_files(root), root),
        "machinery": fingerprint.machinery(
            fingerprint.site_entries(root)
        ),  # the package, wherever the book is
        "environment": fingerprint.environment(fingerprint.Scope.BUILD, environ),
        "command": command,
    }
    return hashlib.sha256(json.dumps(context, sort_keys=True).encode()).hexdigest()


def site_files(html: Path) -> dict[str, list[int]]:
    """``{path under html: [size, modification time in ns]}`` of every file of the site."""
    stats = {p.relative_to(html).as_posix(): p.stat() for p in sorted(html.rglob("*")) if p.is_file()}
    return {name: [stat.st_size, stat.st_mtime_ns] for name, stat in stats.items()}


def record(build: Path, key: str) -> None:
    """Keep that the strict build into ``build`` succeeded from the inputs of ``key``."""
    data = {"inputs": key, "site": site_files(build / layout.SITE)}
    write_atomic(build / layout.SITE_INPUTS, json.dumps(data))


def forget(build: Path) -> None:
    """Before a build: whatever it changes, no record claims the old site."""
    (build / layout.SITE_INPUTS).unlink(missing_ok=True)


def holds(build: Path, key: str) -> bool:
    """Whether the site in ``build/html`` is the one a strict build from ``key``'s inputs made,
    untouched since."""
    try:
        data = json.loads((build / layout.SITE_INPUTS).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    html = build / layout.SITE
    return data.get("inputs") == key and html.is_dir() and data.get("site") == site_files(html)
