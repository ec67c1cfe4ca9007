"""Pages that show their text sooner: one stylesheet, no script that blocks the first paint, and
code blocks drawn with fewer elements.

The theme, Sphinx and the extensions link nine stylesheets in every page's ``<head>``
(``theme.css`` imports a tenth, ``basic.css``): the browser draws nothing until it has fetched
each, so on a phone's connection the first paint waits for a chain of round trips (Lighthouse's
"render-blocking requests", about 600 ms of a guide page's 1.7 s). When the build finishes,
:func:`bundle_stylesheets` writes their rules into one file, ``_static/bundle-<sources>.css``,
in the order the page linked them (imports inlined where they stood, relative ``url()`` values
rewritten for the bundle's folder), and each page links that file instead, with a digest of its
content so that a browser never keeps a stale copy. The bundle's first line names its sources,
which stay in ``_static`` (Sphinx copies them on every build).

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

Sphinx also wraps each word of an inline literal (``jax.jit``, ``f(x, y)``) in a
``<span class="pre">``, which ``basic.css`` keeps from breaking: 113 to 189 elements on those
pages. In the article,
``_static/jaxbook.css`` lets a literal break anywhere instead (a phone's screen is narrower than
some literals), so there the spans change nothing that is seen: :func:`plain_literals` leaves
their text without them. Elsewhere (the page's table of contents) they stay.
"""

from __future__ import annotations

import hashlib
import posixpath
import re
from pathlib import Path

from pygments.token import STANDARD_TYPES, Name, Punctuation, Text, Whitespace

from jaxbook.files import code_digest, write_changed
from jaxbook.pages import built_html

#: Scripts that later inline scripts of the page use as soon as they run.
RUN_AT_ONCE = ("documentation_options.js",)
SCRIPT = re.compile(r"<script\b(?P<attributes>[^>]*)>")


class HeadNotFound(Exception):
    """A page without ``</head>``: not the markup this module rewrites."""


class CodeMarkupChanged(Exception):
    """A page's code blocks, code spans or article are not the markup this module rewrites (an
    upgrade of Sphinx, Pygments or the theme changed it): the rewrite would silently do nothing."""


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


def unwrapped(markup: str, classes: frozenset[str]) -> str:
    """``markup`` with each plain ``<span>`` of one of ``classes`` replaced by its text."""
    return TOKEN.sub(lambda t: t[2] if t[1] in classes else t[0], markup)


def lighter_code(html: str, plain: frozenset[str]) -> str:
    """``html`` with the spans of ``plain`` token classes in its code blocks replaced by their text.
    Raises :class:`CodeMarkupChanged` when a code block, or a span of a plain class in one, is not
    in the markup this reads (it would stay as it is)."""
    found, left = 0, set()

    def lighter_block(block: re.Match) -> str:
        nonlocal found
        found += 1
        code = unwrapped(block[2], plain)
        left.update(span for span in re.findall(r'<span class="([\w-]+)"', code) if span in plain)
        return block[1] + code + block[3]

    lighter = CODE_BLOCK.sub(lighter_block, html)
    blocks = html.count('<div class="highlight">')
    if found != blocks:
        raise CodeMarkupChanged(
            f'{blocks} code blocks (<div class="highlight">), of which {found} are <pre> blocks '
            "that jaxbook/speed.py reads (CODE_BLOCK)"
        )
    if left:
        raise CodeMarkupChanged(f"spans of plain token classes not in the markup TOKEN reads: {sorted(left)}")
    return lighter


#: The article of a page (pydata-sphinx-theme's ``bd-article``) and an inline literal in it (a
#: ``<code>`` of class ``literal`` holding text and ``span.pre`` words).
ARTICLE = re.compile(r'(<article class="bd-article">)(.*?)(</article>)', re.S)
LITERAL = re.compile(
    r'(<code class="[^"]*\bliteral\b[^"]*">)((?:[^<]|<span class="pre">[^<]*</span>)*)(</code>)'
)
WORD_SPANS = frozenset({"pre"})


def plain_literals(html: str) -> str:
    """``html`` with the words of the inline literals of its article out of their ``span.pre``.
    Raises :class:`CodeMarkupChanged` when the page has an article in another markup, or when a
    ``span.pre`` is left in the article (a literal in markup that :data:`LITERAL` does not read)."""

    found, left = 0, []

    def literal(match: re.Match) -> str:
        return match[1] + unwrapped(match[2], WORD_SPANS) + match[3]

    def lighter_article(article: re.Match) -> str:
        nonlocal found
        found += 1
        body = LITERAL.sub(literal, article[2])
        left.extend(re.findall(r'<span class="pre"[^>]*>', body))
        return article[1] + body + article[3]

    lighter = ARTICLE.sub(lighter_article, html)
    if not found and ("<article" in html or 'class="bd-article"' in html):
        raise CodeMarkupChanged(
            'an <article> that is not the theme\'s <article class="bd-article"> (ARTICLE)'
        )
    if left:
        raise CodeMarkupChanged(
            f"{len(left)} span.pre left in the article ({left[0]}): an inline literal in markup that "
            "LITERAL does not read"
        )
    return lighter


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
        try:
            return plain_literals(lighter_code(deferred_scripts(html), plain))
        except CodeMarkupChanged as changed:
            raise CodeMarkupChanged(f"{context.get('pagename', template)}: {changed}") from None

    templates.render = render_lighter


# --- one stylesheet ------------------------------------------------------------------------------

#: A stylesheet link of the site (the theme's and Sphinx's, with or without ``type``, before or
#: after ``href``), whatever the page's depth: ``href="../_static/styles/theme.css?digest=..."``.
STYLESHEET = re.compile(
    r'[ \t]*<link\b(?=[^>]*\brel="stylesheet")[^>]*\bhref="(?P<prefix>[^"]*?)_static/(?P<path>[^"?]+)[^"]*"[^>]*/?>\n?'
)
BUNDLE = re.compile(r"bundle-[0-9a-f]{16}\.css")


def rebased_urls(nodes: list, source: str) -> None:
    """Rewrite in place the relative ``url()`` values of ``nodes`` (tinycss2 component values of a
    stylesheet at ``source``, a path under ``_static``) so that they hold from ``_static``."""
    from tinycss2 import ast
    from tinycss2.serializer import serialize_url

    def rebase(url: str) -> str | None:
        if re.match(r"^([a-z][a-z0-9+.-]*:|/|#)", url, re.I):
            return None  # data:, https:, from the site's root, a fragment: the same from anywhere
        return posixpath.normpath(posixpath.join(posixpath.dirname(source), url))

    for i, node in enumerate(nodes):
        url = None
        if node.type == "url":
            url = node.value
        elif node.type == "function" and node.lower_name == "url":
            url = next((a.value for a in node.arguments if a.type == "string"), None)
        if url is not None and (new := rebase(url)) is not None:
            nodes[i] = ast.URLToken(node.source_line, node.source_column, new, f"url({serialize_url(new)})")
        for child in (
            getattr(node, "arguments", None),
            getattr(node, "content", None),
            getattr(node, "prelude", None),
        ):
            if isinstance(child, list):
                rebased_urls(child, source)


def inlined(static: Path, source: str, seen: tuple[str, ...] = ()) -> str:
    """The stylesheet ``_static/<source>`` with its ``@import`` rules replaced by the stylesheets they
    import and its relative ``url()`` values rewritten to hold from ``_static``."""
    import tinycss2

    if source in seen:
        raise ValueError(f"_static/{source}: its @imports form a circle ({' -> '.join(seen)})")
    rules = tinycss2.parse_stylesheet(
        (static / source).read_text(encoding="utf-8"), skip_comments=True, skip_whitespace=True
    )
    parts = []
    for rule in rules:
        if rule.type == "error":
            raise ValueError(f"_static/{source} (line {rule.source_line}): {rule.message}")
        if rule.type == "at-rule" and rule.lower_at_keyword == "charset":
            continue  # the bundle is UTF-8 as every stylesheet of the site
        if rule.type == "at-rule" and rule.lower_at_keyword == "import":
            target = [t for t in rule.prelude if t.type in ("string", "url")]
            media = [t for t in rule.prelude if t.type not in ("string", "url", "whitespace")]
            if len(target) != 1 or media:
                raise ValueError(f"_static/{source}: an @import the bundle cannot inline: {rule.serialize()}")
            imported = posixpath.normpath(posixpath.join(posixpath.dirname(source), target[0].value))
            parts.append(inlined(static, imported, (*seen, source)))
            continue
        rebased_urls([rule], source)
        parts.append(rule.serialize())
    return "\n".join(parts)


def bundle_name(sources: list[str]) -> str:
    """The bundle of ``sources`` (paths under ``_static``, in the pages' order): named by them."""
    return f"bundle-{hashlib.sha256(chr(10).join(sources).encode()).hexdigest()[:16]}.css"


def head_links(html: str) -> list[re.Match]:
    """The site's stylesheet links in the ``<head>`` of ``html``; raises :class:`HeadNotFound`
    when it has no ``</head>`` or links no stylesheet of ``_static`` in the markup
    :data:`STYLESHEET` reads (every page of the theme links several)."""
    end = html.find("</head>")
    if end == -1:
        raise HeadNotFound("a page has no </head>: jaxbook/speed.py cannot bundle its stylesheets")
    links = list(STYLESHEET.finditer(html, 0, end))
    if not links:
        raise HeadNotFound(
            "a page's <head> links no stylesheet of _static in the markup jaxbook/speed.py reads (STYLESHEET)"
        )
    return links


def linked_bundle(links: list[re.Match]) -> tuple[str, list[str] | None]:
    """The bundle a page's stylesheet ``links`` stand for, and its sources (None for a page that
    an earlier build already bundled: it links the bundle itself)."""
    sources = [m["path"] for m in links]
    if len(sources) == 1 and BUNDLE.fullmatch(sources[0]):
        return sources[0], None
    return bundle_name(sources), sources


def bundled_head(html: str, links: list[re.Match], name: str, digest: str) -> str:
    """``html`` whose stylesheet ``links`` (:func:`head_links`) are replaced by one link to the
    bundle ``name``, with ``?v=digest``."""
    link = f'<link rel="stylesheet" href="{links[0]["prefix"]}_static/{name}?v={digest}" />\n'
    pieces, last = [], 0
    for i, m in enumerate(links):
        pieces += [html[last : m.start()], link if i == 0 else ""]
        last = m.end()
    return "".join(pieces) + html[last:]


def stylesheets_digest(static: Path) -> str:
    """A hash of every stylesheet under ``static`` but the bundles (a bundle's sources and what
    they import are among them), and of this module and tinycss2, which make a bundle of them."""
    digest = hashlib.sha256(code_digest(Path(__file__), ("tinycss2",)))
    for path in sorted(static.rglob("*.css")):
        if not BUNDLE.fullmatch(path.name):
            digest.update(f"\0{path.relative_to(static).as_posix()}\0".encode() + path.read_bytes())
    return digest.hexdigest()[:16]


def bundled_css(static: Path, sources: list[str], kept: Path) -> str:
    """The bundle of ``sources`` (paths under ``static``): read from ``kept`` when an earlier
    build made it from the same stylesheets (``kept`` is named by :func:`stylesheets_digest`), made
    and kept there otherwise, the bundle's older copies deleted. A no-op rebuild parsed about
    470 KB of CSS again without it."""
    if kept.is_file():
        return kept.read_text(encoding="utf-8")
    css = f"/* stylesheets: {' '.join(sources)} */\n" + "\n".join(inlined(static, s) for s in sources) + "\n"
    for older in kept.parent.glob(f"{kept.name.rsplit('.', 1)[0]}.*"):
        older.unlink(missing_ok=True)
    write_changed(kept, css.encode())
    return css


def bundle_stylesheets(app, exception) -> None:
    """Each page links one stylesheet: the bundle of those it linked (after weight.py's purge).
    A page written by an earlier build already links its bundle: the bundle's sources are kept
    in the doctree folder, under its name."""
    if exception is not None or app.builder.format != "html":
        return
    outdir, known = Path(app.outdir), Path(app.doctreedir) / "jaxbook-bundles"
    static = outdir / "_static"
    pages = {}  # page -> (its html, its stylesheet links, the bundle they stand for)
    bundles: dict[str, list[str]] = {}
    for page in built_html(outdir):
        html = page.read_text(encoding="utf-8")
        try:
            links = head_links(html)
        except HeadNotFound as missing:
            raise HeadNotFound(f"{page.relative_to(outdir).as_posix()}: {missing}") from None
        name, sources = linked_bundle(links)
        pages[page] = html, links, name
        if sources is not None:
            bundles.setdefault(name, sources)
    for name in {name for _, _, name in pages.values()} - bundles.keys():
        if not (known / name).is_file():
            raise ValueError(f"pages link _static/{name}, whose sources no build recorded: make clean")
        bundles[name] = (known / name).read_text(encoding="utf-8").split()
    digests = {}
    known.mkdir(parents=True, exist_ok=True)
    stylesheets = stylesheets_digest(static)
    for name, sources in bundles.items():
        css = bundled_css(static, sources, known / f"{name}.{stylesheets}")
        digests[name] = hashlib.sha256(css.encode()).hexdigest()[:16]
        write_changed(known / name, ("\n".join(sources) + "\n").encode())
        write_changed(static / name, css.encode())
    for page, (html, links, name) in pages.items():
        new = bundled_head(html, links, name, digests[name])
        if new != html:
            write_changed(page, new.encode())


def setup(app):
    app.connect("builder-inited", on_builder_inited)
    # After weight.py's purge (priority 500): the bundle holds the rules the site uses.
    app.connect("build-finished", bundle_stylesheets, priority=900)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
