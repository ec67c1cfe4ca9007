"""Nothing the book no longer has stays published.

Sphinx forgets a removed source but keeps the files it wrote for it, so an incremental build would
still publish the old page (its HTML, and its source and notebook under ``_sources``), which the
menu and the search no longer lead to. When the build finishes, even if it failed, every page of
the output folder whose source is gone is deleted with its files under ``_sources``. What stays is
decided from this build's sources (``env.found_docs``), not from the pages this build noticed were
removed: a build stopped before it finished (Sphinx has stored its environment without the page
by then, and the next build does not report it as removed again) leaves nothing the next build
keeps.
"""

from __future__ import annotations

from pathlib import Path

from jaxbook.pages import built_html

#: What the HTML build writes for a page besides ``<docname>.html``: ``_sources/<docname><suffix>``
#: (the source, for download, with or without Sphinx's ``.txt``, and the reader's notebook).
SOURCE_SUFFIXES = (".md", ".ipynb", ".md.txt", ".ipynb.txt", ".txt")
#: The pages Sphinx writes without a source of the book.
OWN_PAGES = ("search", "genindex", "py-modindex")


def written_for(outdir: Path, docname: str) -> list[Path]:
    """The files of ``outdir`` that the HTML build writes for page ``docname`` (those present)."""
    files = [outdir / f"{docname}.html", *(outdir / "_sources" / f"{docname}{s}" for s in SOURCE_SUFFIXES)]
    return [path for path in files if path.is_file()]


def stale_files(outdir: Path, docnames: set[str]) -> list[Path]:
    """The pages of ``outdir``, and the files under its ``_sources``, of no page in ``docnames``."""
    stale = [
        page
        for page in built_html(outdir)
        if page.relative_to(outdir).with_suffix("").as_posix() not in docnames
    ]
    sources = outdir / "_sources"
    for path in sources.rglob("*") if sources.is_dir() else ():
        name = path.relative_to(sources).as_posix()
        suffix = next((s for s in SOURCE_SUFFIXES if name.endswith(s)), None)
        if suffix and path.is_file() and name[: -len(suffix)] not in docnames:
            stale.append(path)
    return sorted(stale)


def on_build_finished(app, exception) -> None:
    found = set(getattr(app.env, "found_docs", ()))
    if app.builder.format != "html" or not found:  # no sources read: nothing to compare with
        return
    pages = found | set(OWN_PAGES) | set(app.config.html_additional_pages)
    for path in stale_files(Path(app.outdir), pages):
        path.unlink()


def setup(app):
    app.connect("build-finished", on_build_finished)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
