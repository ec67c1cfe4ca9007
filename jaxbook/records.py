"""Build records: what the kernel saw when it executed a snippet, for the tests to reuse.

For every executed snippet the kernel writes ``<book root>/_build/records/<path under
snippets/>.json``::

    {"snippet": "snippets/jit/jit_basic.py",
     "sha256": {"snippets/jit/jit_basic.py": "...", "snippets/training/_model.py": "..."},
     "execution_key": "jax==...;jaxlib==...;JAX_PLATFORMS=cpu;...",
     "declared": "TypeError" | null,      # the '# raises:' declaration
     "raised": "TypeError" | null,        # what the snippet actually raised
     "warnings": ["DeprecationWarning: ..."],
     "contract": null | "<error message>",  # null: the contract held
     "output": "<normalised output>",
     "expected": "same" | "differs" | "missing" | "written"}

``sha256`` covers the snippet and every project module it imports
(:func:`jaxbook.deps.project_dependencies`). :func:`matching` returns a record only while all
those files and the execution key (:func:`jaxbook.runtime.execution_key`) are unchanged, so a
test never trusts a record of other code or another JAX.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from jaxbook import runtime
from jaxbook.deps import project_dependencies

RECORDS = Path("_build") / "records"


def record_path(snippet: Path, root: Path) -> Path:
    relative = snippet.resolve().relative_to((root / "snippets").resolve())
    return root / RECORDS / relative.with_suffix(".json")


def hashes(snippet: Path, root: Path) -> dict[str, str]:
    """sha256 of the snippet and of each project module it imports, by repository path."""
    return {
        path.relative_to(root).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in project_dependencies(snippet.resolve(), root)
    }


def write(snippet: Path, root: Path, **fields) -> Path:
    """Write the record of ``snippet`` (fields as in the module docstring)."""
    path = record_path(snippet, root)
    path.parent.mkdir(parents=True, exist_ok=True)
    record = {
        "snippet": snippet.resolve().relative_to(root).as_posix(),
        "sha256": hashes(snippet, root),
        "execution_key": runtime.execution_key(),
        **fields,
    }
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    tmp.write_text(json.dumps(record, indent=1, ensure_ascii=False), encoding="utf-8")
    tmp.replace(path)  # atomic: a reader never sees half a record
    return path


def matching(snippet: Path, root: Path) -> dict | None:
    """The record of ``snippet`` if it describes the files on disk and this JAX, else None."""
    path = record_path(snippet, root)
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    try:
        current = hashes(snippet, root)
    except (OSError, SyntaxError):
        return None
    if record.get("sha256") != current or record.get("execution_key") != runtime.execution_key():
        return None
    return record
