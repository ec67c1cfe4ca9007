"""Nothing to do: the strict build is skipped while the site it made last is what it would make now.

After a strict build succeeds, :func:`record` keeps beside the site (``_build/site.json``):

- the key of everything the build reads (:func:`inputs_key`): the name and content of every file
  of the book that git does not ignore (pages, snippets, practice problems, conf.py, the
  templates, the stylesheets, the machinery) and of the ``jaxbook`` package; the execution
  environment (:func:`jaxbook.store.environment`: JAX and its settings, the processor, the packages,
  Python); the installed distributions, file by file (:func:`distributions`); the variables the
  build reads (:func:`build_variables`); the command line;
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
import os
import sys
from pathlib import Path

from jaxbook.files import files_digest, installed, repository_files, write_atomic

RECORD = "site.json"
#: Variables the build may read besides ``JAXBOOK_*`` (the kernel's are in the execution
#: environment): the host's site address, a fixed build date, the CI switch.
VARIABLES = ("CI", "READTHEDOCS", "READTHEDOCS_CANONICAL_URL", "SOURCE_DATE_EPOCH")
#: Variables of one test run (tests/verdicts.py, tests/conftest.py): they change nothing built.
PER_RUN = frozenset({"JAXBOOK_RECHECK", "JAXBOOK_VERDICTS", "JAXBOOK_TEST_SITE_RUN"})


def build_variables(environ=None, names=VARIABLES, prefixes=("JAXBOOK_",)) -> dict[str, str]:
    """The variables of ``environ`` (default ``os.environ``) the build reads (``names``, and any
    starting with one of ``prefixes``), but those of one test run (:data:`PER_RUN`), sorted by name."""
    env = os.environ if environ is None else environ
    return {
        name: env[name]
        for name in sorted(env)
        if (name.startswith(prefixes) or name in names) and name not in PER_RUN
    }


def distributions(paths: list[str] | None = None) -> list[str]:
    """The installed distributions on ``paths`` (default ``sys.path``), each as its metadata
    folder and the hash of its installed files (:func:`jaxbook.files.installed`)."""
    return [f"{folder} {digest}" for folder, digest in installed(sys.path if paths is None else paths)]


def inputs_key(root: Path, command: list[str], environ=None) -> str:
    """One hash of everything the strict build of the book at ``root`` by ``command`` reads."""
    from jaxbook import machinery_version, store

    context = {
        "files": files_digest(repository_files(root), root),
        "machinery": machinery_version(),  # the package, wherever the book is
        "environment": store.environment(),
        "variables": build_variables(environ),
        # the environment's own packages are in store.environment(): the others on sys.path
        "distributions": distributions([p for p in sys.path if p not in store.site_packages()]),
        "python": [sys.executable, sys.version, sys.path],  # code outside distributions too
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
    data = {"inputs": key, "site": site_files(build / "html")}
    write_atomic(build / RECORD, json.dumps(data))


def forget(build: Path) -> None:
    """Before a build: whatever it changes, no record claims the old site."""
    (build / RECORD).unlink(missing_ok=True)


def holds(build: Path, key: str) -> bool:
    """Whether the site in ``build/html`` is the one a strict build from ``key``'s inputs made,
    untouched since."""
    try:
        data = json.loads((build / RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    html = build / "html"
    return data.get("inputs") == key and html.is_dir() and data.get("site") == site_files(html)
