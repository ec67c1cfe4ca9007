"""Page metadata for search engines and link previews, a sitemap when the base URL is known, and
a 404 page that works at any address.

- every page gets ``<meta name="description">``: its first paragraph of prose, which is also
  the ``og:description`` of the Open Graph tags that sphinxext-opengraph writes (title, type,
  site name, URL; its own description drops the space before inline code such as ``.grad``:
  docs/upstream.md); Sphinx's search page, which has no source, gets one of its own;
- with ``html_baseurl`` set (conf.py takes it from the hosting service), Sphinx adds canonical
  links and this writes ``sitemap.xml`` listing every page;
- the host serves ``404.html`` for any missing address, at any depth (``/guide/zz.html``):
  sphinx-notfound-page makes the theme's links and assets absolute from the site's root
  (``notfound_urls_prefix``, which conf.py derives from ``html_baseurl``), and
  :func:`absolute_links` does the same for the links written in ``404.md``.
"""

from __future__ import annotations

import re
from html import escape, unescape
from pathlib import Path
from xml.sax.saxutils import escape as xml_escape

from docutils import nodes

from jaxbook.files import write_atomic

DESCRIPTION_LENGTH = 200
TAGS = re.compile(r"<[^>]+>")


def description(doctree) -> str:
    """The first paragraph of the page that is prose (not the environment stamp), shortened.
    Upstream: sphinxext-opengraph's description (docs/upstream.md, sphinxext-opengraph 1)."""
    for paragraph in doctree.findall(nodes.paragraph):
        text = " ".join(paragraph.astext().split())
        if len(text) > 40:
            return (
                text
                if len(text) <= DESCRIPTION_LENGTH
                else text[: DESCRIPTION_LENGTH - 1].rsplit(" ", 1)[0] + "…"
            )
    return ""


def generated_description(pagename: str, project: str) -> str:
    """The description of a page Sphinx makes without a source (search). Upstream: Sphinx's search
    page and sphinxext-opengraph (docs/upstream.md, Sphinx 9.1 and sphinxext-opengraph 3)."""
    if pagename == "search":
        return f"Search every page of {project}: the guide, the practice problems and their outputs."
    return ""


def on_html_page_context(app, pagename, templatename, context, doctree) -> None:
    """Before sphinxext-opengraph (which keeps a description already in the page's meta tags and
    takes ``og:`` fields from its metadata): the page's description."""
    project = app.config.project
    if doctree is None and not generated_description(pagename, project):
        return
    title = context.get("title", "")
    summary = (
        (description(doctree) if doctree is not None else generated_description(pagename, project))
        or f"{unescape(TAGS.sub('', title))}: a page of {project}."  # a page with no prose
    )
    tags = [f'<meta name="description" content="{escape(summary)}" />']
    if doctree is None:  # sphinxext-opengraph writes tags for pages with a source only
        tags.append(f'<meta property="og:description" content="{escape(summary)}" />')
    else:
        context["meta"] = {**(context.get("meta") or {}), "og:description": escape(summary)}
    context["metatags"] = context.get("metatags", "") + "\n".join(tags) + "\n"


def absolute_links(doctree, prefix: str) -> None:
    """Make the page's links to other pages of the site absolute: ``guide/grad.html`` becomes
    ``<prefix>guide/grad.html`` (``prefix`` starts and ends with "/"). External links and links
    within the page (``#anchor``) are kept. Upstream: sphinx-notfound-page (docs/upstream.md,
    sphinx-notfound-page 1)."""
    for reference in doctree.findall(nodes.reference):
        uri = reference.get("refuri", "")
        if reference.get("internal") and uri and not uri.startswith(("#", "/")):
            reference["refuri"] = prefix + uri


def on_doctree_resolved(app, doctree, docname) -> None:
    if docname == app.config.notfound_pagename:
        absolute_links(doctree, app.config.notfound_urls_prefix or "/")


def on_build_finished(app, exception) -> None:
    """Write sitemap.xml, listing every page, when the site has an address; without one, remove
    the sitemap an earlier build with an address wrote (its URLs name another site).
    Upstream: sphinx-sitemap (docs/upstream.md)."""
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
    app.connect("html-page-context", on_html_page_context, priority=400)  # before sphinxext-opengraph
    app.connect("doctree-resolved", on_doctree_resolved)
    app.connect("build-finished", on_build_finished)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
