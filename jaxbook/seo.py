"""Page metadata for search engines and link previews, and a sitemap when the base URL is known.

- every page gets ``<meta name="description">`` (its first paragraph) and Open Graph tags;
- with ``html_baseurl`` set (conf.py takes it from the hosting service), Sphinx adds canonical
  links and this writes ``sitemap.xml`` listing every page.
"""

from __future__ import annotations

from html import escape
from pathlib import Path
from xml.sax.saxutils import escape as xml_escape

from docutils import nodes

DESCRIPTION_LENGTH = 200


def description(doctree) -> str:
    """The first paragraph of the page that is prose (not the environment stamp), shortened."""
    for paragraph in doctree.findall(nodes.paragraph):
        text = " ".join(paragraph.astext().split())
        if len(text) > 40:
            return (
                text
                if len(text) <= DESCRIPTION_LENGTH
                else text[: DESCRIPTION_LENGTH - 1].rsplit(" ", 1)[0] + "…"
            )
    return ""


def on_html_page_context(app, pagename, templatename, context, doctree) -> None:
    if doctree is None:
        return
    tags = []
    summary = description(doctree)
    if summary:
        tags.append(f'<meta name="description" content="{escape(summary)}" />')
        tags.append(f'<meta property="og:description" content="{escape(summary)}" />')
    title = context.get("title", "")
    tags.append(f'<meta property="og:title" content="{escape(nodes.Text(title).astext())}" />')
    tags.append(f'<meta property="og:site_name" content="{escape(app.config.project)}" />')
    tags.append('<meta property="og:type" content="article" />')
    if app.config.html_baseurl:
        url = app.config.html_baseurl.rstrip("/") + "/" + app.builder.get_target_uri(pagename)
        tags.append(f'<meta property="og:url" content="{escape(url)}" />')
    context["metatags"] = context.get("metatags", "") + "\n".join(tags) + "\n"


def on_build_finished(app, exception) -> None:
    if exception is not None or not app.config.html_baseurl or app.builder.format != "html":
        return
    base = app.config.html_baseurl.rstrip("/") + "/"
    urls = sorted(base + app.builder.get_target_uri(doc) for doc in app.env.found_docs if doc != "404")
    body = "".join(f"  <url><loc>{xml_escape(url)}</loc></url>\n" for url in urls)
    Path(app.outdir, "sitemap.xml").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n' + body + "</urlset>\n",
        encoding="utf-8",
    )


def setup(app):
    app.connect("html-page-context", on_html_page_context)
    app.connect("build-finished", on_build_finished)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
