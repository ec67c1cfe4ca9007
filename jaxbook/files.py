"""Writes that are all or nothing: whoever reads the file, in this process or another, finds it
as it was or as it is now, never half written (a build killed mid-write leaves the old file)."""

from __future__ import annotations

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


def write_changed(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically, unless the file already holds exactly that (its
    modification time then stays, and nothing is written)."""
    if not path.is_file() or path.read_bytes() != data:
        write_atomic(path, data)
