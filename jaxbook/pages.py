"""From a snippet to its page in one hop, and from a page to its snippets.

The rule (:func:`page_of`), the only place it is written down:

- ``snippets/index/<name>.py``     belongs to ``index.md``;
- ``snippets/practice/<name>.py``  belongs to ``practice/<section>/<name>.md`` (one section has it);
- ``snippets/<folder>/<name>.py``  belongs to ``guide/<folder>.md`` or ``docs/<folder>.md``
  (exactly one of them exists).

The build reports a page that loads a snippet belonging to another page, so the rule always holds.
"""

from __future__ import annotations

from pathlib import Path

#: The pages of the book, as in conf.py's include_patterns.
PAGE_PATTERNS = ("index.md", "guide/*.md", "docs/*.md", "practice/**/*.md")


def page_of(snippet: Path, root: Path) -> Path:
    """The page that shows ``snippet`` (an absolute path under ``root/snippets``), by the rule.

    Raises ValueError naming the snippet when no page, or more than one, fits the rule.
    """
    relative = snippet.resolve().relative_to((root / "snippets").resolve())
    name = relative.as_posix()
    if len(relative.parts) != 2:
        raise ValueError(f"snippets/{name}: a snippet lives directly in snippets/<folder>/")
    folder, stem = relative.parts[0], relative.stem
    if folder == "index":
        candidates = [root / "index.md"]
    elif folder == "practice":
        candidates = sorted(root.glob(f"practice/*/{stem}.md"))
    else:
        candidates = [root / "guide" / f"{folder}.md", root / "docs" / f"{folder}.md"]
    found = [page for page in candidates if page.is_file()]
    if len(found) != 1:
        where = (
            ", ".join(p.relative_to(root).as_posix() for p in candidates) or f"practice/<section>/{stem}.md"
        )
        raise ValueError(
            f"snippets/{name}: by the folder rule its page is one of {where}, "
            f"but {'none' if not found else 'more than one'} exists"
        )
    return found[0]


def book_pages(root: Path) -> list[Path]:
    """Every page source of the book, sorted."""
    return sorted({p for pattern in PAGE_PATTERNS for p in root.glob(pattern)})


def loaded_snippets(page: Path) -> list[Path]:
    """The snippet files ``page`` loads, in the order of its cells."""
    from jaxbook.sphinxext import find_cells

    found = []
    for cell in find_cells(page.read_text(encoding="utf-8").split("\n")):
        if cell.load:
            path = (page.parent / cell.load).resolve()
            if path not in found:
                found.append(path)
    return found


def selection(root: Path, pages: list[str], snippets: list[str]) -> dict[str, list[Path]]:
    """``{page: [snippets]}`` to run: the named pages' snippets and the named snippets (each
    under its page), or every page's snippets when nothing is named."""
    root = root.resolve()
    groups: dict[str, list[Path]] = {}

    def add(page: Path, paths: list[Path]) -> None:
        key = page.relative_to(root).as_posix()
        group = groups.setdefault(key, [])
        group.extend(p for p in paths if p not in group)

    for name in pages:
        page = (root / name).resolve()
        if not page.is_file():
            raise ValueError(f"{name}: no such page")
        add(page, [p for p in loaded_snippets(page) if p.is_file()])
    for name in snippets:
        path = (root / name).resolve()
        if not path.is_file() or path.suffix != ".py" or path.name.startswith("_"):
            raise ValueError(f"{name}: not a snippet file (helpers _*.py have no output)")
        add(page_of(path, root), [path])
    if not pages and not snippets:
        for page in book_pages(root):
            paths = [p for p in loaded_snippets(page) if p.is_file()]
            if paths:
                add(page, paths)
    return groups
