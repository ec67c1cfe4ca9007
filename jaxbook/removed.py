"""Nothing the book no longer has stays published: Sphinx forgets a removed source but keeps the
files it wrote for it. When a build finishes, even a failed one, the files of every page that the
last finished build recorded (:data:`PUBLISHED`) and whose source is gone are deleted; the record is
written after the deletions, so a build stopped before it finished leaves it for the next one.
Only pages of the book's sources are deleted, never a page another extension writes (the 404 page).
"""

from __future__ import annotations

import json
from pathlib import Path

from jaxbook.files import write_atomic

#: What the HTML build writes for a page under ``_sources/<docname>`` besides ``<docname>.html``.
SOURCE_SUFFIXES = (".md", ".ipynb", ".md.txt", ".ipynb.txt", ".txt")
#: The pages the last finished build published (their docnames), in the doctree folder.
PUBLISHED = "jaxbook-published.json"


def written_for(outdir: Path, docname: str) -> list[Path]:
    """The files of ``outdir`` that the HTML build writes for page ``docname`` (those present)."""
    files = [outdir / f"{docname}.html", *(outdir / "_sources" / f"{docname}{s}" for s in SOURCE_SUFFIXES)]
    return [path for path in files if path.is_file()]


def published(doctreedir: Path) -> set[str]:
    """The pages the last finished build recorded (none if it recorded nothing readable)."""
    try:
        return set(json.loads((doctreedir / PUBLISHED).read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError):
        return set()


def on_build_finished(app, exception) -> None:
    found = set(getattr(app.env, "found_docs", ()))
    if app.builder.name != "html" or not found:  # no sources read (yet): nothing to compare with
        return
    doctreedir = Path(app.doctreedir)
    for docname in sorted(published(doctreedir) - found):
        for path in written_for(Path(app.outdir), docname):
            path.unlink()
    write_atomic(doctreedir / PUBLISHED, json.dumps(sorted(found)))


def setup(app):
    app.connect("build-finished", on_build_finished)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
