"""Cells' figures for every reader, checked when a page is read (the HTML is made accessible when
the site is published: :mod:`jaxbook.publish`): a cell's HTML picture (a sharding map that rich
draws as coloured text) becomes an image named by the alt text the page gives the cell
(``:mystnb: {image: {alt: "..."}}``, MyST-NB's option for image outputs); a cell's image carries
its size and loads lazily; a picture or an image without alt text is a build warning."""

from __future__ import annotations

import re
from html import escape
from pathlib import Path

from docutils import nodes
from sphinx.util import logging

from jaxbook.upstream import mystnb, sphinx as sphinx_seam

logger = logging.getLogger(__name__)

# rich's HTML export: a <pre> whose spans carry background colours (a picture drawn with text).
RICH_PICTURE = re.compile(r'<pre style="white-space:pre;[^"]*">.*background-color', re.S)
NO_ALT = (
    "a cell draws {} but has no alt text: add "
    ':mystnb: {{image: {{alt: "what it shows"}}}} to the cell\'s options'
)


def picture_alt(metadata: dict) -> str | None:
    alt = ((metadata.get("mystnb") or {}).get("image") or {}).get("alt")
    return " ".join(str(alt).split()) if alt else None


def size_image(image: nodes.image, srcdir: Path) -> None:
    """Give a cell's image its size in pixels (no layout shift while it loads: Lighthouse's
    "unsized-images") and let the browser load it when it nears the screen."""
    if "width" not in image and "height" not in image:
        size = sphinx_seam.image_size(srcdir / image["uri"])
        if size is None:
            message = f"the size of the cell's image {image['uri']} cannot be read"
            logger.warning(message, location=image, type="jaxbook", subtype="image")
        else:
            image["width"], image["height"] = (str(n) for n in size)
    image["loading"] = "lazy"


def on_doctree_read(app, doctree) -> None:
    """Name each cell's HTML picture with the cell's alt text (role="img"); warn of a picture or
    an image without alt text."""
    for cell in doctree.findall(nodes.container):
        options = mystnb.code_cell_options(cell)
        if options is None:
            continue
        alt = picture_alt(options)
        for image in cell.findall(nodes.image):
            size_image(image, Path(app.srcdir))
            if not image.get("alt", "").strip():
                logger.warning(NO_ALT.format("an image"), location=cell, type="jaxbook", subtype="alt")
        for raw in list(cell.findall(nodes.raw)):
            if raw.get("format") != "html" or not RICH_PICTURE.search(raw.astext()):
                continue
            if alt is None:
                message = NO_ALT.format("a picture (a coloured map)")
                logger.warning(message, location=cell, type="jaxbook", subtype="alt")
                continue
            html = f'<div class="jaxbook-picture" role="img" aria-label="{escape(alt)}">{raw.astext()}</div>'
            raw.replace_self(nodes.raw("", html, format="html"))


def setup(app):
    app.connect("doctree-read", on_doctree_read)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
