"""A page removed from the book leaves the site.

Sphinx forgets a removed source but keeps the files it wrote for it, so an incremental build would
still publish the old page (its HTML, and its source and notebook under ``_sources``), which the
menu and the search no longer lead to. When the build finishes, those files are deleted, even if
the build failed: Sphinx has already stored its environment without the page, and the next build
would not report the page as removed again.
"""

from __future__ import annotations

from pathlib import Path

#: What the HTML build writes for a page besides ``<docname>.html``: ``_sources/<docname><suffix>``
#: (the source, for download, with or without Sphinx's ``.txt``, and the reader's notebook).
SOURCE_SUFFIXES = (".md", ".ipynb", ".md.txt", ".ipynb.txt", ".txt")


def written_for(outdir: Path, docname: str) -> list[Path]:
    """The files of ``outdir`` that the HTML build writes for page ``docname`` (those present)."""
    files = [outdir / f"{docname}.html", *(outdir / "_sources" / f"{docname}{s}" for s in SOURCE_SUFFIXES)]
    return [path for path in files if path.is_file()]


def on_env_get_outdated(app, env, added, changed, removed) -> list[str]:
    app.jaxbook_removed = set(removed)
    return []


def on_build_finished(app, exception) -> None:
    if app.builder.format != "html":
        return
    for docname in sorted(getattr(app, "jaxbook_removed", ())):
        for path in written_for(Path(app.outdir), docname):
            path.unlink()


def setup(app):
    app.connect("env-get-outdated", on_env_get_outdated)
    app.connect("build-finished", on_build_finished)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
