"""Pages that show their text sooner: no script blocks the first paint, and code blocks are
drawn with fewer elements.

Sphinx, the extensions (doctools, the copy button, sphinx-design's tabs, the book's own) and the
theme's templates (the search page's ``searchtools.js`` and index) put plain ``<script src>``
tags in the page's ``<head>``: the browser stops drawing the page until each is fetched and run
(Lighthouse's "render-blocking requests", most of a mobile page's time to first paint). Each of
them waits for the document anyway (``DOMContentLoaded``), so every one gets ``defer`` when the
page is written: fetched while the page is parsed, run in the same order once it is parsed.
``documentation_options.js`` stays as it is: the theme's inline scripts that follow it set
``DOCUMENTATION_OPTIONS`` at once.

Pygments wraps every token of a code block in a ``<span>``: most of a guide page's elements
(3,000 to 4,000 of 4,000 to 5,500 on sharding, grad, training), which the browser styles and lays
out one by one. Names, punctuation and spaces are drawn in the code block's own colour by both of
the theme's highlighting styles (light and dark), so their spans change nothing that is seen:
:func:`lighter_code` leaves their text without the span. Which token classes are plain is read
from the stylesheet the theme writes (:func:`plain_token_classes`), so a style that colours them
keeps them.
"""

from __future__ import annotations

import re

from pygments.token import STANDARD_TYPES, Name, Punctuation, Text, Whitespace

#: Scripts that later inline scripts of the page use as soon as they run.
RUN_AT_ONCE = ("documentation_options.js",)
SCRIPT = re.compile(r"<script\b(?P<attributes>[^>]*)>")


class HeadNotFound(Exception):
    """A page without ``</head>``: not the markup this module rewrites."""


def deferred_scripts(html: str) -> str:
    """``html`` with ``defer`` on each external script of its ``<head>`` that is neither deferred,
    asynchronous, a module nor in :data:`RUN_AT_ONCE`."""
    end = html.find("</head>")
    if end == -1:
        raise HeadNotFound("a page has no </head>: jaxbook/speed.py cannot defer its scripts")

    def defer(match: re.Match) -> str:
        attributes = match["attributes"]
        src = re.search(r"""\bsrc=["']?([^"'\s>]+)""", attributes)
        if (
            not src
            or re.search(r"\b(defer|async)\b|type=[\"']?module", attributes)
            or src[1].split("?")[0].endswith(RUN_AT_ONCE)
        ):
            return match[0]
        return f"<script defer{attributes}>"

    return SCRIPT.sub(defer, html[:end]) + html[end:]


#: The token kinds whose spans may go: names, punctuation and spaces (and their subkinds). Not
#: the others, even when drawn plain: sphinx-copybutton finds prompts and printed output by their
#: classes (``.gp``, ``.go``: ``copybutton_exclude`` in conf.py).
UNWRAPPED = (Name, Name.Namespace, Name.Other, Punctuation, Punctuation.Marker, Whitespace, Text)
#: A rule of the theme's pygments.css: ``html[data-theme="light"] .highlight .n { color: #080808 }``.
RULE = re.compile(
    r'^html\[data-theme="(?P<mode>\w+)"\] \.highlight(?: \.(?P<token>[\w-]+))? \{(?P<body>[^}]*)\}', re.M
)
CODE_BLOCK = re.compile(r'(<div class="highlight"><pre>)(.*?)(</pre>)', re.S)
TOKEN = re.compile(r'<span class="([\w-]+)">([^<]*)</span>')


def plain_token_classes(css: str) -> frozenset[str]:
    """The Pygments token classes that the stylesheet ``css`` (the theme's pygments.css, a light
    and a dark style) draws exactly as the code block's text: no rule, or only the block's colour,
    in every mode."""
    base, styled = {}, {}
    for rule in RULE.finditer(css):
        declarations = {
            name.strip(): value.strip()
            for name, _, value in (d.partition(":") for d in rule["body"].split(";") if d.strip())
        }
        if rule["token"] is None:
            base[rule["mode"]] = declarations.get("color")
        else:
            styled.setdefault(rule["token"], []).append((rule["mode"], declarations))
    if not {"light", "dark"} <= base.keys() or not styled:
        raise ValueError("the theme's pygments.css is not the light and dark rules jaxbook/speed.py reads")
    names = {STANDARD_TYPES[t] for t in STANDARD_TYPES if t in UNWRAPPED} - {""}
    return frozenset(n for n in names if all(d == {"color": base[mode]} for mode, d in styled.get(n, [])))


def lighter_code(html: str, plain: frozenset[str]) -> str:
    """``html`` with the spans of ``plain`` token classes in its code blocks replaced by their text."""

    def block(match: re.Match) -> str:
        tokens = TOKEN.sub(lambda t: t[2] if t[1] in plain else t[0], match[2])
        return match[1] + tokens + match[3]

    return CODE_BLOCK.sub(block, html)


def theme_pygments_css(app) -> str:
    """The pygments.css that pydata-sphinx-theme writes (at the end of the build) for its light
    and dark highlighting styles, made with the theme's own function."""
    from pydata_sphinx_theme.pygments import get_pygments_stylesheet

    options = app.builder.theme.get_options(app.config.html_theme_options)
    return get_pygments_stylesheet(options["pygments_light_style"], options["pygments_dark_style"])


def on_builder_inited(app) -> None:
    if app.builder.format != "html":
        return
    plain = plain_token_classes(theme_pygments_css(app))
    templates = app.builder.templates
    render = templates.render

    def render_lighter(template: str, context: dict) -> str:
        html = render(template, context)
        if not template.endswith(".html") or "<head" not in html:
            return html
        return lighter_code(deferred_scripts(html), plain)

    templates.render = render_lighter


def setup(app):
    app.connect("builder-inited", on_builder_inited)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
