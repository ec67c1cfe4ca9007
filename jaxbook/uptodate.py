"""Nothing to do: the strict build is skipped while the site it made last is what it would make now.

After a strict build succeeds, :func:`record` keeps beside the site (``_build/site.json``):

- the key of everything the build reads (:func:`inputs_key`): the name and content of every file
  of the book it can read (:func:`book_files`), the code of the ``jaxbook``
  package it runs and the build's environment (:mod:`jaxbook.fingerprint`), the command line;
- each file of the site with its size and modification time.

The next strict build does nothing when both still hold (:func:`holds`). Anything else runs
Sphinx: a changed byte of any input, another package, a file of the site deleted or edited by
hand. The record is deleted before Sphinx starts and written only after it succeeded, with the
inputs as they were when it started, so a failed or stopped build is never taken for a good one,
and a failure is reported again by every build until it is fixed. Files whose content did not
change (``touch``) change nothing.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from jaxbook import files, fingerprint, layout, pages
from jaxbook.files import files_digest, write_atomic

#: Where the book's code finds files without being told their names (folders it lists, its pages):
#: a file git does not track counts there, and elsewhere only tracked ones do (a log, scratch notes).
LISTED = ("snippets/*", "practice/*", "jaxbook/*", "tests/*", "_static/*", "_templates/*", "conftest.py")


def book_files(root: Path) -> tuple[Path, ...]:
    """The files of the book at ``root`` that its build and tests can read."""
    return files.repository_files(root, (*LISTED, *pages.PAGE_PATTERNS))


def inputs_key(root: Path, command: list[str], environ=None) -> str:
    """One hash of everything the strict build of the book at ``root`` by ``command`` reads."""
    context = {
        "files": files_digest(book_files(root), root),
        "machinery": fingerprint.machinery(fingerprint.site(root)),  # the package, wherever the book is
        "environment": fingerprint.environment("build", environ),
        "command": command,
    }
    return hashlib.sha256(json.dumps(context, sort_keys=True).encode()).hexdigest()


def site_files(html: Path) -> dict[str, list[int]]:
    """``{path under html: [size, modification time in ns]}`` of every file of the site."""
    files = {}
    for path in sorted(html.rglob("*")):
        if path.is_file():
            stat = path.stat()
            files[path.relative_to(html).as_posix()] = [stat.st_size, stat.st_mtime_ns]
    return files


def record(build: Path, key: str) -> None:
    """Keep that the strict build into ``build`` succeeded from the inputs of ``key``."""
    data = {"inputs": key, "site": site_files(build / layout.SITE)}
    write_atomic(build / layout.RECORD, json.dumps(data))


def forget(build: Path) -> None:
    """Before a build: whatever it changes, no record claims the old site."""
    (build / layout.RECORD).unlink(missing_ok=True)


def holds(build: Path, key: str) -> bool:
    """Whether the site in ``build/html`` is the one a strict build from ``key``'s inputs made,
    untouched since."""
    try:
        data = json.loads((build / layout.RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    html = build / layout.SITE
    return data.get("inputs") == key and html.is_dir() and data.get("site") == site_files(html)
