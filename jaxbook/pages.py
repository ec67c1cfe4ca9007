"""The book's pages, read with MyST's own parser (no Sphinx, no code run): which pages there are,
what each code cell loads, and which page shows a snippet (:func:`page_of`)."""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from jaxbook.upstream import myst_parser

#: The pages of the book (besides 404.md), as conf.py's ``include_patterns``: ``*`` stays in a folder.
PAGE_PATTERNS = ("index.md", "guide/*.md", "docs/*.md", "practice/*.md", "practice/*/*.md")
#: MyST's syntax extensions of the book (conf.py's ``myst_enable_extensions``).
MYST_EXTENSIONS = ("colon_fence", "deflist", "dollarmath")
CODE_CELL = "{code-cell}"
TOCTREE = "{toctree}"
#: A line that opens a directive with backticks (```{dropdown} ...); the ticks are group 1.
DIRECTIVE_FENCE = re.compile(r"\s*(`{3,})\{")
NOT_A_FENCE = (
    "'{}' is not read as a directive: a backtick fence's title cannot contain a backtick, so MyST "
    "reads the line as text and the closing fence opens a code block that swallows what follows{} "
    "up to the next fence; write the title without backticks (or open the directive with ':::')"
)


@dataclass(frozen=True)
class Cell:
    """A ``{code-cell}`` of a page: where it is, what it loads, and what else it holds."""

    line: int  # 1-based line of the opening fence
    load: str | None  # the ``load`` option, relative to the page
    load_line: int  # 1-based line of the ``load`` option (the fence's line when absent)
    body: tuple[str, ...]  # inline code (a book cell has none)
    tags: tuple[str, ...] = ()
    tags_line: int = 0
    unreadable: str | None = None  # why MyST-NB could not read its options


@dataclass(frozen=True)
class Page:
    path: Path
    top_matter: dict = field(default_factory=dict)
    cells: tuple[Cell, ...] = ()
    toctree: tuple[str, ...] = ()  # the entries of its ``{toctree}`` blocks, relative to the page
    not_fences: tuple[tuple[int, str], ...] = ()  # (line, why) of each directive read as text

    def children(self) -> list[Path]:
        """The page sources its toctrees list, in order (entries that name no file are left out)."""
        found = [(self.path.parent / f"{entry}.md").resolve() for entry in self.toctree]
        return [path for path in dict.fromkeys(found) if path.is_file()]

    @property
    def is_notebook(self) -> bool:
        """MyST-NB reads the page as a notebook (``file_format: mystnb``) and executes it."""
        return self.top_matter.get("file_format") == "mystnb"

    def snippets(self, existing: bool = False) -> list[Path]:
        """The snippet files the page's cells load, in order, once each: existing or not, or
        (``existing``) those that exist, which are what the page runs."""
        found = [loaded(self.path, c.load) for c in self.cells if c.load]
        return [path for path in dict.fromkeys(found) if not existing or path.is_file()]


def snippet_files(root: Path) -> list[Path]:
    """Every snippet of the book at ``root``, sorted: ``snippets/**/*.py`` but helpers (``_name.py``)."""
    return sorted(
        path
        for path in (root / "snippets").rglob("*.py")
        if not path.name.startswith("_") and "__pycache__" not in path.parts
    )


def loaded(page: Path, load: str) -> Path:
    """The file a cell of ``page`` names with ``:load: <load>`` (relative to the page), resolved."""
    return (page.parent / load).resolve()


def tokens(text: str, inline: bool = False) -> list:
    """The block tokens of the Markdown ``text``, as MyST parses a page (inline syntax left
    unparsed; ``inline=True``: each ``inline`` token's ``children`` are its text, code and links)."""
    return myst_parser.markdown_parser(frozenset(MYST_EXTENSIONS), inline).parse(text)


@functools.cache
def _parse(text: str) -> tuple[dict, tuple[Cell, ...], tuple[str, ...], tuple[tuple[int, str], ...]]:
    blocks = tokens(text + "\n")
    lines = text.split("\n")
    top_matter, cells, toctree = None, [], []
    not_fences = tuple(_not_fences(blocks))
    if blocks and blocks[0].type == "front_matter":
        try:
            top_matter = yaml.safe_load(blocks[0].content)
        except yaml.YAMLError:
            pass  # MyST reports it
    for token in blocks:
        if token.type == "fence" and token.level == 0 and token.info.startswith(TOCTREE):
            toctree += filter(None, map(_toctree_entry, token.content.split("\n")))
        if token.type != "fence" or token.level != 0 or not token.info.startswith(CODE_CELL):
            continue
        start = token.map[0] + 1
        result = myst_parser.directive("", token.content)
        options, unreadable = result.options, result.warning
        body = tuple(line for line in result.body if line.strip())
        cells.append(
            Cell(
                line=start,
                load=str(options["load"]).strip() if options.get("load") else None,
                load_line=_option_line(lines, start, token.map[1], "load"),
                body=body,
                tags=cell_tags(options),
                tags_line=_option_line(lines, start, token.map[1], "tags"),
                unreadable=unreadable,
            )
        )
    return top_matter if isinstance(top_matter, dict) else {}, tuple(cells), tuple(toctree), not_fences


def cell_tags(options: dict) -> tuple[str, ...]:
    """The ``:tags:`` of a code cell's ``options``: a YAML list, or its text ``[a, b]``."""
    tags = options.get("tags") or ()
    if isinstance(tags, str):
        tags = tags.strip("[]").split(",")
    return tuple(str(t).strip() for t in tags if str(t).strip())


def _not_fences(blocks: list):
    """(line, why) for each line written as a directive's backtick fence that MyST reads as text
    (its title holds a backtick), naming the code cells that the fence it leaves open swallows.
    Only the page's own Markdown is read: the top level and lists, not the body of a ``:::``
    directive, which MyST parses later (a code cell cannot be nested there, so a fence there
    swallows none; it is left as text in the directive, unflagged)."""
    for number, token in enumerate(blocks):
        if token.type != "inline" or not token.map:
            continue
        paragraph = token.content.split("\n")
        for offset, line in enumerate(paragraph):
            opening = DIRECTIVE_FENCE.match(line)
            if not opening:
                continue
            rest = "\n".join(paragraph[offset:])[opening.end() :]
            if re.search(rf"(?<!`){opening[1]}(?!`)", rest):  # closed: inline code, not a fence
                continue
            fence = next((block for block in blocks[number:] if block.type == "fence"), None)
            inside = fence.content.split("\n") if fence is not None and not fence.info else []
            swallowed = [
                str(fence.map[0] + 2 + index)
                for index, text in enumerate(inside)
                if text.lstrip().startswith("`") and CODE_CELL in text
            ]
            plural = "s" if len(swallowed) > 1 else ""
            where = f" (the code cell{plural} at line{plural} {', '.join(swallowed)})" if swallowed else ""
            yield token.map[0] + 1 + offset, NOT_A_FENCE.format(line.strip(), where)


def captioned_toctrees(page: Path) -> list[tuple[str, list[Path]]]:
    """``(caption, pages)`` of each ``{toctree}`` of ``page`` in order (caption "" when none):
    index.md's captions are the menu's sections ("The ten steps", "Under the hood")."""
    found = []
    for token in tokens(page.read_text(encoding="utf-8")):
        if token.type == "fence" and token.level == 0 and token.info.startswith(TOCTREE):
            lines = token.content.split("\n")
            caption = next(
                (line.split(":", 2)[2].strip() for line in lines if line.startswith(":caption:")), ""
            )
            entries = tuple(filter(None, map(_toctree_entry, lines)))
            found.append((caption, Page(page, toctree=entries).children()))
    return found


def _toctree_entry(line: str) -> str:
    """The document a toctree line names (``name`` or ``Title <name>``); "" for an option or blank."""
    line = line.strip()
    if not line or line.startswith(":"):
        return ""
    if line.endswith(">") and "<" in line:
        line = line[line.rindex("<") + 1 : -1]
    return line.removesuffix(".md")


def _option_line(lines: list[str], start: int, end: int, key: str) -> int:
    """The 1-based line of option ``key`` in the cell between lines ``start`` and ``end``."""
    for number in range(start + 1, end + 1):
        text = lines[number - 1].strip()
        if text.startswith((f":{key}:", f"{key}:")):
            return number
    return start


def parse(text: str, path: Path) -> Page:
    """The page whose source is ``text`` (from the file at ``path``), parsed once per process."""
    return Page(path, *_parse(text))


def read(path: Path) -> Page:
    """The page at ``path``."""
    return parse(path.read_text(encoding="utf-8"), path)


def book_pages(root: Path) -> list[Path]:
    """Every page source of the book, sorted."""
    return sorted({p for pattern in PAGE_PATTERNS for p in root.glob(pattern)})


#: The page a host serves for any missing address (sphinx-notfound-page builds it from 404.md).
NOT_FOUND_PAGE = "404.html"


def published_pages(root: Path) -> list[str]:
    """Every page of the built site a reader can open, relative to it: the sources' and search.html."""
    return [p.relative_to(root).with_suffix(".html").as_posix() for p in book_pages(root)] + ["search.html"]


def built_html(outdir: Path) -> list[Path]:
    """The HTML pages of the site built in ``outdir`` (not the theme's fragments under ``_static``)."""
    return [page for page in outdir.rglob("*.html") if page.relative_to(outdir).parts[0] != "_static"]


def page_of(snippet: Path, root: Path) -> Path:
    """The page that shows ``snippet`` (under ``root/snippets``) by the folder rule, else ValueError."""
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


def preview(root: Path, names: list[str]) -> list[str]:
    """What ``make page`` builds for the pages ``names`` (paths under ``root``): the pages, the
    pages on the toctree path from ``index.md`` down to each, and the pages without code cells
    that each lists (the theme draws its navigation from them), and the glossaries, which define the
    terms any page may link. ValueError for no page."""
    root = root.resolve()
    found = set(book_pages(root))
    wanted: list[Path] = []
    for name in names:
        page = (root / name).resolve()
        if page not in found:
            raise ValueError(f"{name}: not a page of the book (its pages: {', '.join(PAGE_PATTERNS)})")
        wanted += [*(_toctree_path((root / "index.md").resolve(), page, set()) or []), page]
        wanted += [child for child in read(page).children() if not read(child).cells]
    wanted += glossaries(root) if wanted else []
    return [p.relative_to(root).as_posix() for p in dict.fromkeys(wanted)]


def glossaries(root: Path) -> list[Path]:
    """The pages with a ``{glossary}`` directive: a ``{term}`` link to one of its terms needs it."""
    found = []
    for page in book_pages(root):
        text = page.read_text(encoding="utf-8")
        if "{glossary}" in text and any(
            t.type == "fence" and t.info.strip() == "{glossary}" for t in tokens(text)
        ):
            found.append(page)
    return found


def _toctree_path(start: Path, page: Path, seen: set[Path]) -> list[Path] | None:
    """The pages whose toctrees lead from ``start`` down to ``page`` (not itself), or None."""
    if start == page:
        return []
    seen.add(start)
    for child in read(start).children():
        if child not in seen and (path := _toctree_path(child, page, seen)) is not None:
            return [start, *path]
    return None


def selection(root: Path, pages: list[str], snippets: list[str]) -> dict[str, list[Path]]:
    """``{page: [snippets]}`` to run: the named pages' snippets and the named snippets (each
    under its page), or every page's snippets when nothing is named."""
    root = root.resolve()
    if not pages and not snippets:
        having = [page for page in book_pages(root) if read(page).snippets(existing=True)]
        pages = [page.relative_to(root).as_posix() for page in having]
    groups: dict[Path, list[Path]] = {}
    for name in pages:
        page = (root / name).resolve()
        if not page.is_file():
            raise ValueError(f"{name}: no such page")
        groups[page] = read(page).snippets(existing=True)
    for name in snippets:
        path = (root / name).resolve()
        if not path.is_file() or path.suffix != ".py":
            raise ValueError(f"{name}: no such snippet file")
        if path.name.startswith("_"):
            raise ValueError(f"{name}: a helper has no output of its own; use HELPER={name}")
        page = page_of(path, root)
        if path not in read(page).snippets():
            where = page.relative_to(root).as_posix()
            load = Path(os.path.relpath(path, page.parent)).as_posix()
            raise ValueError(
                f"{name}: {where} does not load it, so it has no output yet; add a cell to "
                f"{where}:\n```{{code-cell}} ipython3\n:load: {load}\n```"
            )
        groups[page] = list(dict.fromkeys([*groups.get(page, []), path]))
    return {page.relative_to(root).as_posix(): paths for page, paths in groups.items()}
