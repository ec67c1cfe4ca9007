"""Writes that are all or nothing: whoever reads the file, in this process or another, finds it
as it was or as it is now, never half written (a build killed mid-write leaves the old file); and
the hash of the code that made a kept file (:func:`code_digest`)."""

from __future__ import annotations

import hashlib
import os
import threading
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


def code_digest(source: Path, libraries: tuple[str, ...], version=None) -> bytes:
    """A hash of the code that turns inputs into outputs: the module ``source`` and the versions
    of the distributions ``libraries`` it calls (``version``: a distribution's version, default
    importlib's). A kept output is used only while this is unchanged."""
    if version is None:
        from importlib.metadata import version
    versions = "".join(f"{name}=={version(name)};" for name in libraries)
    return hashlib.sha256(source.read_bytes() + versions.encode()).digest()


def write_changed(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically, unless the file already holds exactly that (its
    modification time then stays, and nothing is written)."""
    if not path.is_file() or path.read_bytes() != data:
        write_atomic(path, data)
