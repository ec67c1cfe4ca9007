"""Offer each executed page as a notebook: the download menu gets ``.ipynb`` next to ``.md``.

MyST-NB writes the executed notebook of every page to its output folder; this copies it beside
the page's Markdown source in ``_sources/`` and tells sphinx-book-theme about it.

With ``nb_merge_streams``, MyST-NB merges a cell's printed output into the first stream output
in place but keeps the later ones in the notebook it writes, so they would appear twice; the copy
drops them, and the notebook shows what the page shows.
"""
from __future__ import annotations

import json
from pathlib import Path


def on_html_page_context(app, pagename, templatename, context, doctree) -> None:
    executed = Path(app.env.mystnb_config.output_folder) / f"{pagename}.ipynb"
    if doctree is None or not executed.is_file():
        return
    target = Path(app.outdir) / "_sources" / f"{pagename}.ipynb"
    target.parent.mkdir(parents=True, exist_ok=True)
    notebook = json.loads(executed.read_text(encoding="utf-8"))
    if app.config.nb_merge_streams:
        for cell in notebook["cells"]:
            if cell["cell_type"] == "code":
                cell["outputs"] = without_merged_streams(cell["outputs"])
    target.write_text(json.dumps(notebook, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    context["ipynb_source"] = f"{pagename}.ipynb"


def without_merged_streams(outputs: list[dict]) -> list[dict]:
    """Keep only the first stream output of each name (it already holds the merged text)."""
    seen, kept = set(), []
    for output in outputs:
        if output["output_type"] == "stream":
            if output["name"] in seen:
                continue
            seen.add(output["name"])
        kept.append(output)
    return kept


def setup(app):
    # Before sphinx-book-theme builds its download menu (default priority 500).
    app.connect("html-page-context", on_html_page_context, priority=400)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
