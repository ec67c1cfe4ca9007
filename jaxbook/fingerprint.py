"""What a kept result depends on besides the book's own files, said once for every key that holds
it: the environment (:func:`environment`) and the machinery's code (:func:`machinery`)."""

from __future__ import annotations

import enum
import functools
import hashlib
import json
import os
import platform
import runpy
import sys
import sysconfig
from collections.abc import Iterable
from pathlib import Path

from jaxbook import runtime
from jaxbook.deps import project_dependencies
from jaxbook.files import files_digest

PACKAGE = Path(__file__).resolve().parent
#: The kernel, from which the execution store's results come: its module and specification. The
#: other keys hold what Sphinx loads besides (:func:`extension_entries`).
KERNEL = ("kernel.py", "kernels/python3/kernel.json")
#: Variables the build reads besides ``JAXBOOK_*``: the host's site and repository addresses, a
#: fixed date, CI.
BUILD_VARIABLES = (
    "CI",
    "READTHEDOCS",
    "READTHEDOCS_CANONICAL_URL",
    "READTHEDOCS_GIT_CLONE_URL",
    "SOURCE_DATE_EPOCH",
)


def machinery(entries: Iterable[str] = KERNEL, package: Path = PACKAGE) -> str:
    """A hash of the code ``entries`` (files of ``package``) run (:func:`code`)."""
    return files_digest(code(entries, package), package)


def code(entries: Iterable[str] = KERNEL, package: Path = PACKAGE) -> list[Path]:
    """The files of ``package`` that ``entries`` run: each entry and every module of the package it
    imports, transitively, read from the code itself (never a list kept by hand)."""
    found = set()
    for entry in entries:
        path = package / entry
        for file in sorted(path.rglob("*.py")) if path.is_dir() else [path]:
            found.update(project_dependencies(file, package.parent) if file.suffix == ".py" else [file])
    return sorted(p for p in found if p.is_relative_to(package))


def extension_entries(extensions: Iterable[str], package: Path = PACKAGE) -> tuple[str, ...]:
    """The entries of a Sphinx build that loads ``extensions`` (conf.py's list): the kernel, whose
    results it renders, and each of them that is a module of ``package`` (a subpackage: every
    module in it), from which :func:`code` follows every module they import."""
    ours = [n.split(".", 1)[1].replace(".", "/") for n in extensions if n.startswith(f"{package.name}.")]
    return (*KERNEL, *(n if (package / n).is_dir() else f"{n}.py" for n in ours))


def site_entries(root: Path, package: Path = PACKAGE) -> tuple[str, ...]:
    """The entries of the site's build of the book at ``root``: the build command and the
    :func:`extension_entries` of the ``extensions`` of ``root/conf.py`` (run, as Sphinx runs it)."""
    path = list(sys.path)
    try:
        names = runpy.run_path(str(root / "conf.py")).get("extensions", [])
    finally:
        sys.path[:] = path  # conf.py adds the book to it, which would change the environment's key
    return ("build.py", *extension_entries(names, package))


class Scope(enum.IntEnum):
    """Who reads the environment, each seeing more of it than the one before (:func:`environment`)."""

    KERNEL = 1  # the execution store
    BUILD = 2  # the site
    TESTS = 3  # the pass cache


def variables(scope: Scope, environ=None) -> dict[str, str]:
    """The variables of ``environ`` (default ``os.environ``) that can change what ``scope`` makes:
    for the kernel, JAX's and XLA's settings but those :func:`jaxbook.runtime.configure` sets or
    removes, and matplotlib's backend; for the build also ``JAXBOOK_*`` and :data:`BUILD_VARIABLES`;
    for the tests also those configure sets, and ``PATH``."""
    env = os.environ if environ is None else environ
    configured = () if scope >= Scope.TESTS else (*runtime.JAX_ENV, *runtime.CACHE_VARIABLES)
    prefixes = ("JAX_", "XLA_") + (("JAXBOOK_",) if scope >= Scope.BUILD else ())
    names = (
        ("MPLBACKEND",)
        + (BUILD_VARIABLES if scope >= Scope.BUILD else ())
        + (("PATH",) if scope >= Scope.TESTS else ())
    )
    return {n: env[n] for n in sorted(env) if (n.startswith(prefixes) or n in names) and n not in configured}


def environment(scope: Scope = Scope.KERNEL, environ=None, tools: dict[str, str] | None = None) -> str:
    """What of the environment can change what ``scope`` makes, each seeing more than the last:

    - the kernel (the execution store): JAX's version and the settings it is given, the CPU it
      compiles for, Python's version, its :func:`variables` and the packages of its Python
      environment by their files (the user's ``PYTHONPATH`` does not reach it);
    - the build (the site): also its variables, every package on ``sys.path``, and this Python's
      program and path (code outside any package);
    - the tests (the pass cache): also the platform, the cores, ``PATH`` and ``tools`` (what the
      caller knows of the programs it runs outside Python, such as a version or a hash).
    """
    scope = Scope(scope)  # ValueError for another
    found = {
        "jax": runtime.execution_key(),
        "cpu": runtime.cpu(),
        "python": platform.python_version(),
        "variables": variables(scope, environ),
        "packages": packages(site_packages()),
    }
    if scope >= Scope.BUILD:
        found["path"] = [sys.executable, sys.version, sys.path]
        found["packages"] = packages(sys.path)
    if scope >= Scope.TESTS:
        found["platform"] = [platform.platform(), os.cpu_count()]
        found["tools"] = tools or {}
    return json.dumps(found, sort_keys=True)


def site_packages() -> list[str]:
    """The folders of this Python's environment that hold its installed packages."""
    return sorted({sysconfig.get_path("purelib"), sysconfig.get_path("platlib")})


def packages(paths: Iterable[str]) -> str:
    """A hash of the distributions installed on ``paths`` (entries of ``sys.path``), each by its
    metadata folder's name and :func:`installed_files`, read once per process while the folders
    holding them are unchanged."""
    return _packages(tuple((p, _mtime(p)) for p in paths))


def _mtime(folder: str) -> int | None:
    try:
        return os.stat(folder or ".").st_mtime_ns
    except OSError:
        return None


@functools.cache
def _packages(folders: tuple[tuple[str, int | None], ...]) -> str:
    found = []
    for entry, _ in folders:
        try:
            names = sorted(os.listdir(entry or "."))
        except OSError:  # a zip file, a folder that is gone
            continue
        metadata = (n for n in names if n.endswith((".dist-info", ".egg-info", ".egg-link")))
        found += [f"{n} {installed_files(Path(entry or '.') / n)}" for n in metadata]  # wherever the checkout
    return hashlib.sha256("\n".join(found).encode()).hexdigest()[:16]


def installed_files(metadata: Path) -> str:
    """A hash of what the distribution of this metadata folder installed: its ``RECORD`` (every
    file with its own hash) and ``direct_url.json``; one that never repeats for an editable
    install, whose code lives elsewhere, or one that cannot be read."""
    digest, known = hashlib.sha256(), not metadata.name.endswith(".egg-link")
    try:
        for part in ("RECORD", "direct_url.json"):
            if (metadata / part).is_file():
                digest.update((metadata / part).read_bytes())
        if (metadata / "direct_url.json").is_file():
            source = json.loads((metadata / "direct_url.json").read_text(encoding="utf-8"))
            known = known and not source.get("dir_info", {}).get("editable")
    except (OSError, ValueError):  # unreadable: not known either
        known = False
    if not known:  # a key that never repeats
        digest.update(os.urandom(16))
    return digest.hexdigest()[:16]
