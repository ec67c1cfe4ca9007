"""The execution store: each page's snippets executed once, the results kept by content.

A page's cells run in order in one kernel reset to a fresh state, as a reader runs its notebook,
so the page is the unit. Its :class:`~jaxbook.results.PageResult` is kept in
``_build/store/<key>.json`` under :func:`page_key`: the snippets in order with the content of each
and of every project module it imports, the kernel's code (:func:`jaxbook.fingerprint.machinery`)
and its environment (:func:`jaxbook.fingerprint.environment`). Whether an output matches its
``.out`` file is not stored: each consumer decides it (:mod:`jaxbook.verdict`). Writes are
atomic, so a build killed at any moment leaves a complete result or none. Each entry also keeps
what its key was made of (``made_of``), so that :func:`explain` can say why a page runs again,
from the stored content alone.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict
from pathlib import Path

from jaxbook import fingerprint, layout
from jaxbook.deps import project_dependencies
from jaxbook.files import file_digest, write_atomic
from jaxbook.results import CellResult, PageResult


def inputs(snippets: list[Path], root: Path) -> dict[str, str]:
    """``{path under root: sha256}`` of the snippets and every project module they import."""
    found = {}
    for snippet in snippets:
        for path in project_dependencies(snippet.resolve(), root):
            name = path.relative_to(root).as_posix()
            found.setdefault(name, file_digest(path))
    return found


def page_key(snippets: list[Path], root: Path) -> tuple[str, dict[str, str]]:
    """The key of a page running ``snippets`` in this order, and the inputs it was made from.
    Raises OSError or SyntaxError when a file cannot be read or parsed."""
    files = inputs(snippets, root)
    order = [s.resolve().relative_to(root).as_posix() for s in snippets]
    return key_of(order, files, fingerprint.machinery(), fingerprint.environment()), files


def key_of(order: list[str], files: dict[str, str], machinery: str, environment: str) -> str:
    """The key made of a page's snippets in ``order``, the ``files`` they run, the kernel's code
    and its environment (the JSON text of :func:`jaxbook.fingerprint.environment`)."""
    material = [order, sorted(files.items()), machinery, environment]
    return hashlib.sha256(json.dumps(material).encode()).hexdigest()


def folder(root: Path) -> Path:
    """The store of the book at ``root``, or ``$JAXBOOK_STORE`` (the bench's clean build's own)."""
    return Path(os.environ.get("JAXBOOK_STORE") or root / layout.STORE)


def path_of(key: str, root: Path) -> Path:
    return folder(root) / key[:2] / f"{key}.json"


def load(key: str, root: Path) -> PageResult | None:
    """The stored result of ``key``, or None (absent or unreadable: executed again)."""
    try:
        data = json.loads(path_of(key, root).read_text(encoding="utf-8"))
        data.pop("made_of", None)
        data["cells"] = [CellResult(**cell) for cell in data["cells"]]
        return PageResult(**data)
    except (OSError, ValueError, TypeError, KeyError):
        return None


def save(result: PageResult, root: Path) -> Path:
    """Keep ``result`` under its key, atomically, with what the key was made of besides the
    page's files: the kernel's code and its environment, as this process sees them (the caller
    has just checked that they give ``result.key``)."""
    path = path_of(result.key, root)
    path.parent.mkdir(parents=True, exist_ok=True)
    made_of = {"machinery": fingerprint.machinery(), "environment": json.loads(fingerprint.environment())}
    write_atomic(path, json.dumps({**asdict(result), "made_of": made_of}, ensure_ascii=False))
    return path


def entries(root: Path) -> list[Path]:
    """Every stored result's file, by key."""
    return sorted(folder(root).glob("??/*.json"))


def by_page(root: Path) -> dict[str, list[dict]]:
    """Every stored entry (as its JSON file holds it) by page, each read once."""
    found: dict[str, list[dict]] = {}
    for path in entries(root):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        found.setdefault(data.get("page"), []).append(data)
    return found


def explain(
    page: str, key: str, order: list[str], files: dict[str, str], root: Path, stored: dict | None = None
) -> list[str]:
    """Why ``page`` (its path under the root), whose key is now ``key`` for its snippets in
    ``order`` running ``files``, has no stored result: what differs from its nearest stored
    result (the one with the fewest differences, by content: a copied store, whose files' times
    say nothing, explains the same; from ``stored``, :func:`by_page` read once for many pages),
    one reason a line; [] when it has one."""
    if path_of(key, root).is_file():
        return []
    now = fingerprint.machinery(), json.loads(fingerprint.environment())
    found = [
        differences(data, order, files, *now)
        for data in (by_page(root) if stored is None else stored).get(page, [])
    ]
    if not found:
        return ["no result of this page is stored"]
    return min(found, key=len)


def differences(
    last: dict, order: list[str], files: dict[str, str], machinery: str, environment: dict
) -> list[str]:
    """What differs between the stored result ``last`` and a page running ``files`` in
    ``order`` with the kernel's code ``machinery`` in ``environment``, one reason a line."""
    reasons = []
    stored_order = [cell["snippet"] for cell in last["cells"]]
    if stored_order != order:
        added = [s for s in order if s not in stored_order]
        removed = [s for s in stored_order if s not in order]
        moved = "" if added or removed else "the same snippets in another order"
        reasons.append(
            "its cells changed: "
            + "; ".join(
                filter(
                    None,
                    [
                        added and f"added {', '.join(added)}",
                        removed and f"removed {', '.join(removed)}",
                        moved,
                    ],
                )
            )
        )
    old = last["inputs"]
    for name in sorted(set(old) | set(files)):
        if name not in old:
            reasons.append(f"{name} is run now, and was not")
        elif name not in files:
            reasons.append(f"{name} is no longer run")
        elif old[name] != files[name]:
            reasons.append(f"{name} changed")
    made_of = last.get("made_of")
    if made_of is None:
        return reasons + [
            "its stored result does not say what its key was made of (stored by an older build)"
        ]
    if made_of["machinery"] != machinery:
        reasons.append("the kernel's code changed (jaxbook/kernel.py or a module it imports)")
    for part in sorted(set(environment) | set(made_of["environment"])):
        before, after = made_of["environment"].get(part), environment.get(part)
        if before == after:
            continue
        if part == "variables":
            names = sorted(n for n in set(before) | set(after) if before.get(n) != after.get(n))
            reasons.append(f"the kernel's variables changed: {', '.join(names)}")
        else:
            reasons.append(f"the kernel's environment changed: {part} ({before} -> {after})")
    return reasons or ["its stored result is under another key (the key's recipe changed)"]


def unreachable(keep: set[str], root: Path) -> list[Path]:
    """The stored results :func:`prune` would delete: those whose key is not in ``keep``."""
    return [path for path in entries(root) if path.stem not in keep]


def prune(keep: set[str], pages: set[str], root: Path) -> tuple[int, int]:
    """Delete every stored result whose key is not in ``keep`` (the current keys of the book's
    pages) and every duration of a page not in ``pages``; how many results and bytes went."""
    gone = [(path, path.stat().st_size) for path in unreachable(keep, root)]
    for path, _ in gone:
        path.unlink()
    known = durations(root)
    if set(known) - pages:
        path = folder(root) / "durations.json"
        write_atomic(
            path, json.dumps({p: s for p, s in known.items() if p in pages}, indent=0, sort_keys=True)
        )
    return len(gone), sum(size for _, size in gone)


def durations(root: Path) -> dict[str, float]:
    """Seconds each page last took to execute, by page (for scheduling the longest first)."""
    try:
        return json.loads((folder(root) / "durations.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def record_duration(page: str, seconds: float, root: Path) -> None:
    """Remember how long ``page`` took (a hint: two processes writing at once may lose one
    figure, never corrupt the file)."""
    path = folder(root) / "durations.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, json.dumps({**durations(root), page: round(seconds, 2)}, indent=0, sort_keys=True))
