"""Page metadata for search engines and link previews, a sitemap when the base URL is known, and
a 404 page that works at any address: every page's ``<meta name="description">`` is its first
paragraph of prose (also the ``og:description`` of sphinxext-opengraph's tags; Sphinx's search
page gets one of its own); with ``html_baseurl`` set (conf.py takes it from the host) this writes
``sitemap.xml``; the links written in ``404.md`` are made absolute from the site's root, as
sphinx-notfound-page makes the theme's (:func:`absolute_links`). Upstream: docs/upstream.md."""

from __future__ import annotations

import re
from html import escape, unescape
from pathlib import Path
from xml.sax.saxutils import escape as xml_escape

from docutils import nodes

from jaxbook.files import write_atomic
from jaxbook.upstream import opengraph

DESCRIPTION_LENGTH = 200
TAGS = re.compile(r"<[^>]+>")


def description(doctree) -> str:
    """The first paragraph of the page that is prose, shortened: none inside an element Sphinx's
    search skips (class ``no-search``: the page's note, the cells' captions)."""
    for paragraph in doctree.findall(nodes.paragraph):
        if any("no-search" in node.get("classes", ()) for node in _ancestors(paragraph)):
            continue
        text = " ".join(paragraph.astext().split())
        if len(text) > DESCRIPTION_LENGTH:
            return text[: DESCRIPTION_LENGTH - 1].rsplit(" ", 1)[0] + "…"
        if len(text) > 40:
            return text
    return ""


def _ancestors(node):
    while node is not None:
        yield node
        node = node.parent


def on_html_page_context(app, pagename, templatename, context, doctree) -> None:
    """Before sphinxext-opengraph (which keeps a description already in the page's meta tags and
    takes ``og:`` fields from its metadata): the page's description."""
    project = app.config.project
    if doctree is None and pagename != "search":
        return
    title = unescape(TAGS.sub("", context.get("title", "")))
    summary = (
        description(doctree)
        if doctree is not None
        else f"Search every page of {project}: the guide, the practice problems and their outputs."
    ) or f"{title}: a page of {project}."  # a page with no prose
    tags = [f'<meta name="description" content="{escape(summary)}" />']
    if doctree is None:  # sphinxext-opengraph writes tags for pages with a source only
        tags.append(f'<meta property="og:description" content="{escape(summary)}" />')
    else:
        opengraph.describe(context, escape(summary))
    context["metatags"] = context.get("metatags", "") + "\n".join(tags) + "\n"


def absolute_links(doctree, prefix: str) -> None:
    """Make the page's links to other pages of the site absolute: ``guide/grad.html`` becomes
    ``<prefix>guide/grad.html`` (``prefix`` starts and ends with "/"); links within the page
    (``#anchor``) and to other sites are kept."""
    for reference in doctree.findall(nodes.reference):
        uri = reference.get("refuri", "")
        if reference.get("internal") and uri and not uri.startswith(("#", "/")):
            reference["refuri"] = prefix + uri


def on_doctree_resolved(app, doctree, docname) -> None:
    if docname == app.config.notfound_pagename:
        absolute_links(doctree, app.config.notfound_urls_prefix or "/")


def on_build_finished(app, exception) -> None:
    """Write sitemap.xml, listing every page, when the site has an address; without one, remove
    the sitemap an earlier build with an address wrote (its URLs name another site)."""
    if exception is not None or app.builder.format != "html":
        return
    sitemap = Path(app.outdir, "sitemap.xml")
    if not app.config.html_baseurl:
        sitemap.unlink(missing_ok=True)
        return
    base = app.config.html_baseurl.rstrip("/") + "/"
    urls = sorted(base + app.builder.get_target_uri(doc) for doc in app.env.found_docs if doc != "404")
    body = "".join(f"  <url><loc>{xml_escape(url)}</loc></url>\n" for url in urls)
    write_atomic(
        sitemap,
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n' + body + "</urlset>\n",
    )


def setup(app):
    app.connect("html-page-context", on_html_page_context, priority=opengraph.BEFORE_TAGS)
    app.connect("doctree-resolved", on_doctree_resolved)
    app.connect("build-finished", on_build_finished)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
