"""Files written all or nothing (:func:`write_atomic`: a reader finds the old file or the new one,
never half of it, even after a build killed mid-write) and files known by their content (one hash
of files' names and contents, :func:`files_digest`)."""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Iterable
from pathlib import Path


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
    modification time then stays)."""
    if not path.is_file() or path.read_bytes() != data:
        write_atomic(path, data)


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
