"""Every ``{code-cell}`` loads a valid snippet under ``snippets/``; a failure is reported at the
page's line, and the snippet's files become dependencies of the page."""

from __future__ import annotations

from pathlib import Path

from jaxbook import book_root, pages
from jaxbook.deps import project_dependencies
from jaxbook.outputs import expected_path
from jaxbook.snippet import SnippetError, display_path, parse_declaration
from jaxbook.sphinxext.findings import source_finding

#: Tags with which MyST-NB would publish a cell unchecked: any exception passes, or it never runs.
UNCHECKED_TAGS = ("raises-exception", "skip-execution")
NOT_A_NOTEBOOK = (
    "a page with code cells must start with the top matter "
    "'---\\nfile_format: mystnb\\nkernelspec: ...\\n---' (see docs/contributing.md)"
)


def validate_cell(page: Path, cell: pages.Cell) -> tuple[list[Path], str | None]:
    """(the files the cell's snippet runs, snippet first, None) for a valid cell, else ([], why)."""
    if cell.unreadable:
        return [], f"the cell's options cannot be read: {cell.unreadable}"
    if cell.body:
        return [], (
            "a code cell must not contain inline code: put it in a file under "
            "snippets/ and load it with ':load: <path>'"
        )
    if not cell.load:
        return [], "a code cell must load a snippet: add ':load: <path to snippets/...py>'"
    path = pages.loaded(page, cell.load)
    if not path.is_relative_to(book_root() / "snippets"):
        return [], f"':load: {cell.load}' is outside snippets/: every code cell comes from snippets/"
    if not path.is_file():
        return [], f"snippet file not found: {display_path(path)} (from ':load: {cell.load}')"
    try:
        source = path.read_text(encoding="utf-8")
        compile(source, display_path(path), "exec")
        parse_declaration(source, display_path(path))
        files = project_dependencies(path, book_root())
    except SyntaxError as exc:
        return [], f"{display_path(exc.filename or path)}:{exc.lineno}: syntax error: {exc.msg}"
    except SnippetError as exc:
        return [], str(exc)
    return files, None


def page_execution_settings(page: pages.Page, lines: list[str]) -> list[tuple[str, int]]:
    """(message, line) for each ``execution*`` setting under ``mystnb`` in the page's top matter
    (``lines`` is its source): how pages run is conf.py's decision."""
    settings = page.top_matter.get("mystnb")
    found = []
    for key in settings if isinstance(settings, dict) else ():
        if str(key).startswith("execution"):
            line = next((i for i, text in enumerate(lines, 1) if text.strip().startswith(f"{key}:")), 1)
            message = f"the page sets '{key}' under 'mystnb': pages run as conf.py says, every one under"
            found.append((f"{message} the snippet contract; remove it", line))
    return found


def on_source_read(app, docname: str, source: list[str]) -> None:
    """Validate the page's code cells, record what the page depends on, and turn each invalid
    cell into text, so the build goes on and reports every failure at once. A directive's fence
    that Markdown reads as text (a backtick in its title) fails at its line: it swallows the
    cells after it."""
    path = Path(app.env.doc2path(docname))
    page = pages.parse(source[0], path)
    for line, message in page.not_fences:
        source_finding(app.env, docname, message, line)
    if not page.cells:
        return
    lines = source[0].split("\n")
    findings = page_execution_settings(page, lines)
    if not page.is_notebook:
        findings.insert(0, (NOT_A_NOTEBOOK, 1))
    for cell in page.cells:
        tag = next((tag for tag in UNCHECKED_TAGS if tag in cell.tags), None)
        if tag:
            files, line = [], cell.tags_line
            message = (
                f"the tag {tag!r} would publish this cell without checking it (MyST-NB lets any "
                "exception through, or skips the run): declare an expected error in the snippet "
                "('# raises: ValueError', see docs/contributing.md)"
            )
        else:
            (files, message), line = validate_cell(path, cell), cell.load_line
        if message:
            findings.append((message, line))
            lines[cell.line - 1] = lines[cell.line - 1].replace(pages.CODE_CELL, "text", 1)
            continue
        for dependency in [*files, expected_path(files[0])]:  # a new .out is checked again
            app.env.note_dependency(str(dependency))
    for message, line in findings:
        source_finding(app.env, docname, message, line)
    source[0] = "\n".join(lines)


def setup(app):
    app.connect("source-read", on_source_read)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
