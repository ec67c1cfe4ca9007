"""Writes that are all or nothing: whoever reads the file, in this process or another, finds it
as it was or as it is now, never half written (a build killed mid-write leaves the old file); the
files of a repository (:func:`repository_files`) and one hash of files' names and contents
(:func:`files_digest`); the installed distributions, known by their files (:func:`installed`)."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import threading
from collections.abc import Iterable
from fnmatch import fnmatch
from pathlib import Path

from jaxbook import layout

#: Folders of generated files, left out of a folder's files where git cannot say what it ignores
#: (with every folder whose name starts with a dot: caches, environments, .git).
GENERATED = frozenset({layout.BUILD.name, "node_modules", "__pycache__"})


def write_atomic(path: Path, data: str | bytes) -> None:
    """Write ``data`` (text as UTF-8) to ``path``: into a temporary file beside it, named for
    this process and thread, then renamed over ``path`` in one step."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}-{threading.get_ident()}.tmp")
    try:
        if isinstance(data, bytes):
            tmp.write_bytes(data)
        else:
            tmp.write_text(data, encoding="utf-8")
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)


def write_changed(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically, unless the file already holds exactly that (its
    modification time then stays, and nothing is written)."""
    if not path.is_file() or path.read_bytes() != data:
        write_atomic(path, data)


def repository_files(root: Path, untracked: tuple[str, ...] = ("*",)) -> tuple[Path, ...]:
    """Every file under ``root`` that git tracks, and those it neither tracks nor ignores whose
    path matches one of ``untracked`` (``fnmatch`` patterns), sorted; outside a git checkout,
    every file but those in a :data:`GENERATED` folder or a folder named with a dot."""
    try:
        tracked, others = (
            _git_files(root, kind) for kind in (["--cached"], ["--others", "--exclude-standard"])
        )
        files = {root / n for n in tracked} | {
            root / n for n in others if any(fnmatch(n, p) for p in untracked)
        }
    except (OSError, subprocess.CalledProcessError):  # not a git checkout
        files = {p for p in root.rglob("*") if not any(map(generated, p.relative_to(root).parts[:-1]))}
    return tuple(sorted(p for p in files if p.is_file()))


def _git_files(root: Path, options: list[str]) -> list[str]:
    listed = subprocess.run(["git", "ls-files", "-z", *options], cwd=root, capture_output=True, check=True)
    return [os.fsdecode(name) for name in listed.stdout.split(b"\0") if name]


def generated(folder: str) -> bool:
    """Whether a folder of this name holds generated files (outside a git checkout)."""
    return folder in GENERATED or folder.startswith(".")


_hashes: dict[Path, tuple[int, int, str]] = {}


def file_digest(path: Path) -> str:
    """sha256 of ``path``'s content ("missing" when there is none), read once per process while
    its modification time and size stay the same."""
    try:
        stat = path.stat()
    except OSError:
        return "missing"
    cached = _hashes.get(path)
    if cached and cached[:2] == (stat.st_mtime_ns, stat.st_size):
        return cached[2]
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    _hashes[path] = (stat.st_mtime_ns, stat.st_size, digest)
    return digest


def name_under(path: Path, root: Path) -> str:
    """``path`` under ``root``, or in full when it is elsewhere."""
    text, prefix = str(path), f"{root}/"
    return text[len(prefix) :] if text.startswith(prefix) else text


def files_digest(paths: Iterable[Path], root: Path) -> str:
    """One hash of the names (under ``root``) and contents of ``paths``: a touch changes
    nothing, a changed byte, a new, renamed or deleted file changes it."""
    digest = hashlib.sha256()
    for path in sorted(set(paths), key=str):
        digest.update(f"{name_under(path, root)}\0{file_digest(path)}\n".encode())
    return digest.hexdigest()


def installed(paths: Iterable[str]) -> list[tuple[Path, str]]:
    """The installed distributions on ``paths`` (entries of ``sys.path``), each as its metadata
    folder and a hash of its ``RECORD`` (every installed file with its own hash) and
    ``direct_url.json``. An editable install, whose code lives elsewhere, or one that cannot be
    read, gets a hash that never repeats."""
    found = []
    for entry in paths:
        try:
            names = sorted(os.listdir(entry or "."))
        except OSError:  # a zip file, a folder that is gone
            continue
        for name in names:
            if not name.endswith((".dist-info", ".egg-info", ".egg-link")):
                continue
            folder, digest = Path(entry or ".") / name, hashlib.sha256()
            try:
                for part in ("RECORD", "direct_url.json"):
                    if (folder / part).is_file():
                        digest.update((folder / part).read_bytes())
                known = not editable(folder)
            except OSError:  # unreadable: not known either
                known = False
            if not known:  # a key that never repeats
                digest.update(os.urandom(16))
            found.append((folder, digest.hexdigest()[:16]))
    return found


def editable(metadata: Path) -> bool:
    """Whether the distribution of this metadata folder is installed in editable mode: its code
    lives elsewhere and changes without a new install."""
    if metadata.name.endswith(".egg-link"):
        return True
    try:
        source = json.loads((metadata / "direct_url.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return bool(source.get("dir_info", {}).get("editable"))
