"""Accessibility fixes of the theme's and MyST-NB's markup, applied when the site is written
(page weight: :mod:`jaxbook.weight`, :mod:`jaxbook.speed`).

- Each collapsible toggle of the sidebar (a ``<summary>`` holding only a chevron icon) gets an
  accessible name, "Pages in <section>" (axe rule ``summary-name``). Upstream, pydata-sphinx-theme's
  ``toctree.py`` should give the ``<summary>`` it creates a label.
- A cell's HTML picture (the coloured sharding maps of ``jax.debug.visualize_array_sharding``,
  drawn by rich as text) becomes an image for assistive technology, named by the alt text the page
  gives the cell (``:mystnb: {image: {alt: "..."}}``, the option MyST-NB uses for image outputs):
  one mechanism for every picture a cell draws.
- MyST-NB's "Show code cell outputs" toggles are named by their visible text, and hold no
  paragraphs (invalid in a ``<summary>``).
- A cell's image (a matplotlib figure) carries its size (no layout shift) and loads lazily.
"""

from __future__ import annotations

import re
from html import escape, unescape
from pathlib import Path

from docutils import nodes
from sphinx.util import logging

logger = logging.getLogger(__name__)

# The <summary> that pydata-sphinx-theme puts after a section's link in the navigation.
TOGGLE = re.compile(
    r'(?P<link><a class="(?:current )?reference internal" href="[^"]*">(?P<title>(?:(?!</a>).)*)</a>\s*'
    r"<details[^>]*>\s*)<summary>",
    re.S,
)
TAG = re.compile(r"<[^>]+>")
SIDEBAR_TOGGLE = '<summary><span class="toctree-toggle"'  # one not named yet


def name_toggles(html: str) -> str:
    """Give every sidebar section toggle the name "Pages in <section title>".
    Upstream: pydata-sphinx-theme's toctree.py (docs/upstream.md, pydata-sphinx-theme 1)."""

    def label(match: re.Match) -> str:
        title = " ".join(unescape(TAG.sub("", match["title"])).split())
        quoted = title.replace("&", "&amp;").replace('"', "&quot;")
        return f'{match["link"]}<summary aria-label="Pages in {quoted}">'

    named, count = TOGGLE.subn(label, html)
    if count != html.count(SIDEBAR_TOGGLE):
        raise MarkupChanged(
            f"{html.count(SIDEBAR_TOGGLE)} sidebar toggles but {count} in pydata-sphinx-theme's known "
            "markup: the theme changed its toctree toggles; update TOGGLE in jaxbook/a11y.py"
        )
    return named


# rich's HTML export: a <pre> whose spans carry background colours (a picture drawn with text).
RICH_PICTURE = re.compile(r'<pre style="white-space:pre;[^"]*">.*background-color', re.S)


def picture_alt(cell) -> str | None:
    metadata = cell.get("cell_metadata", {})
    alt = ((metadata.get("mystnb") or {}).get("image") or {}).get("alt")
    return " ".join(str(alt).split()) if alt else None


def size_image(image: nodes.image, srcdir: Path) -> None:
    """Give a cell's image its size in pixels (the browser keeps its place before it arrives: no
    layout shift, Lighthouse's "unsized-images") and let the browser load it when it nears the
    screen (``loading="lazy"``)."""
    from sphinx.util.images import get_image_size

    if "width" not in image and "height" not in image:
        size = get_image_size(srcdir / image["uri"])
        if size is None:
            logger.warning(
                f"the size of the cell's image {image['uri']} cannot be read",
                location=image,
                type="jaxbook",
                subtype="image",
            )
        else:
            image["width"], image["height"] = (str(n) for n in size)
    image["loading"] = "lazy"


def on_doctree_read(app, doctree) -> None:
    """Name each cell's HTML picture with the cell's alt text (role="img"); a picture or an image
    without alt text is a build warning (an error in the strict build)."""
    for cell in doctree.findall(nodes.container):
        if cell.get("nb_element") != "cell_code":
            continue
        alt = picture_alt(cell)
        for image in cell.findall(nodes.image):
            size_image(image, Path(app.srcdir))
            if not image.get("alt", "").strip():
                logger.warning(
                    "a cell draws an image but has no alt text: add "
                    ':mystnb: {image: {alt: "what it shows"}} to the cell\'s options',
                    location=cell,
                    type="jaxbook",
                    subtype="alt",
                )
        for raw in list(cell.findall(nodes.raw)):
            if raw.get("format") != "html" or not RICH_PICTURE.search(raw.astext()):
                continue
            if alt is None:
                logger.warning(
                    "a cell draws a picture (a coloured map) but has no alt text: add "
                    ':mystnb: {image: {alt: "what it shows"}} to the cell\'s options',
                    location=cell,
                    type="jaxbook",
                    subtype="alt",
                )
                continue
            quoted = escape(alt, quote=True)
            raw.replace_self(
                nodes.raw(
                    "",
                    f'<div class="jaxbook-picture" role="img" aria-label="{quoted}">{raw.astext()}</div>',
                    format="html",
                )
            )


# MyST-NB's toggle of a hidden cell (myst_nb.sphinx_.visit_HideCellInput) is labelled "Toggle
# hidden content", which does not contain its visible text ("Show code cell outputs"; axe rule
# label-content-name-mismatch): without the label its name is its visible text. Its two titles are
# paragraphs, which a <summary> cannot hold (HTML: phrasing content only; the Nu HTML Checker's
# "Element p not allowed as child of element summary"): they become spans, styled as MyST-NB
# styles the paragraphs (_static/jaxbook.css). Upstream: MyST-NB's HideCodeCellNode visitor.
HIDDEN_CELL = '<details class="admonition hide'
HIDDEN_CONTENT_TOGGLE = re.compile(
    r'<summary aria-label="Toggle hidden content">\s*'
    r'<p class="collapsed admonition-title">(?P<show>[^<]*)</p>\s*'
    r'<p class="expanded admonition-title">(?P<hide>[^<]*)</p>\s*</summary>'
)


class MarkupChanged(Exception):
    """The theme's or MyST-NB's markup is not what this module rewrites (after an upgrade)."""


def fix_hidden_cell_toggles(html: str) -> str:
    """MyST-NB's hidden-cell toggles named by their text, with their titles as spans; raises
    :class:`MarkupChanged` when a hidden cell's toggle is not MyST-NB's known markup."""
    fixed, count = HIDDEN_CONTENT_TOGGLE.subn(
        r'<summary><span class="collapsed admonition-title">\g<show></span>'
        r'<span class="expanded admonition-title">\g<hide></span></summary>',
        html,
    )
    if count != html.count(HIDDEN_CELL):
        raise MarkupChanged(
            f"{html.count(HIDDEN_CELL)} hidden cells but {count} toggles in MyST-NB's known markup: "
            "MyST-NB changed its hide-cell toggle; update jaxbook/a11y.py HIDDEN_CONTENT_TOGGLE"
        )
    return fixed


def fix_html(html: str) -> str:
    """The theme's and MyST-NB's markup with named toggles."""
    return fix_hidden_cell_toggles(name_toggles(html))


# What _templates/ re-implements of pydata-sphinx-theme (a block of a template, or a whole one),
# by a hash of its source in the theme version the copy was made from: an upgrade of the theme
# that changes one fails the build, naming the file to review, instead of silently keeping a
# copy of the old markup.
THEME_TEMPLATES = {
    ("layout.html", "css"): "1436267ac153f48c",  # _templates/layout.html: no Font Awesome bundle
    ("layout.html", "extrahead"): "e607f7742f3bd264",  # _templates/layout.html: no search index
    ("components/search-button-field.html", None): "518dda81dd8cd06a",  # its name is its visible text
}


def theme_template(name: str, block: str | None) -> str:
    """The source of pydata-sphinx-theme's template ``name`` (only ``block`` of it, if given)."""
    import pydata_sphinx_theme

    path = Path(pydata_sphinx_theme.__file__).parent / "theme" / "pydata_sphinx_theme" / name
    source = path.read_text(encoding="utf-8")
    if block is None:
        return source
    found = re.search(rf"{{%-?\s*block {block}\s*%}}(.*?){{%-?\s*endblock {block}\s*%}}", source, re.S)
    if found is None:
        raise MarkupChanged(f"pydata-sphinx-theme's {name} has no block {block!r}: review _templates/{name}")
    return found[1]


def check_theme_templates() -> None:
    """Raise :class:`MarkupChanged` when the theme changed what ``_templates/`` re-implements."""
    import hashlib

    for (name, block), expected in THEME_TEMPLATES.items():
        digest = hashlib.sha256(theme_template(name, block).encode()).hexdigest()[:16]
        if digest != expected:
            what = f"block {block!r} of {name}" if block else name
            raise MarkupChanged(
                f"pydata-sphinx-theme changed the {what} that _templates/{Path(name).name} "
                f"re-implements (hash {digest}, expected {expected}): bring the changes into "
                "_templates/, then update THEME_TEMPLATES in jaxbook/a11y.py"
            )


def on_builder_inited(app) -> None:
    if app.builder.format != "html":
        return
    check_theme_templates()
    templates = app.builder.templates
    render = templates.render

    def render_fixed(template: str, context: dict) -> str:
        return fix_html(render(template, context))

    templates.render = render_fixed


def setup(app):
    app.add_js_file("keyboard.js")  # in _static/: keyboard users keep the focus on the buttons
    app.connect("builder-inited", on_builder_inited)
    app.connect("doctree-read", on_doctree_read)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
