"""Offer each executed page as a notebook: the download menu gets ``.ipynb`` next to ``.md``.

MyST-NB writes the executed notebook of every page to its output folder; this copies it beside
the page's Markdown source in ``_sources/`` and tells sphinx-book-theme about it.
"""
from __future__ import annotations

import shutil
from pathlib import Path


def on_html_page_context(app, pagename, templatename, context, doctree) -> None:
    executed = Path(app.env.mystnb_config.output_folder) / f"{pagename}.ipynb"
    if doctree is None or not executed.is_file():
        return
    target = Path(app.outdir) / "_sources" / f"{pagename}.ipynb"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(executed, target)
    context["ipynb_source"] = f"{pagename}.ipynb"


def setup(app):
    # Before sphinx-book-theme builds its download menu (default priority 500).
    app.connect("html-page-context", on_html_page_context, priority=400)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
