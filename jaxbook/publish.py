"""The publishing stage: once Sphinx has written the site with its theme, each page it wrote is
read with an HTML parser (BeautifulSoup) and its stylesheets with a CSS parser (tinycss2), and what
a reader needs beyond the theme's output is done on them, for any theme: controls get accessible
names (:func:`name_controls`); no script blocks the first paint, and those no page uses go
(:func:`lighter_scripts`); each page links one stylesheet holding only the rules a page can use,
with icon fonts cut to the icons shown (:func:`bundle`); PNG figures become lossless WebP where
that is smaller (:func:`webp_figures`).

A published page names its bundle's sources on its stylesheet link (:data:`SOURCES`): a later
build that did not rewrite it re-makes its bundle from the stylesheets as they are then. Every
build reads every page, since the bundles keep the rules that any page can use.
"""

from __future__ import annotations

import functools
import hashlib
import io
import itertools
import posixpath
import re
from pathlib import Path
from urllib.parse import urlsplit

import tinycss2
import tinycss2.ast
from bs4 import BeautifulSoup, Comment, SoupStrainer
from pygments.token import STANDARD_TYPES, Name, Punctuation, Text, Whitespace
from tinycss2.serializer import serialize_url

from jaxbook import fingerprint
from jaxbook.files import write_atomic, write_changed
from jaxbook.pages import built_html

#: Sphinx's script that inline scripts of every page use as soon as they run: never deferred.
RUN_AT_ONCE = ("documentation_options.js",)
#: Sphinx's search machinery, which only its search page uses.
SEARCH_SCRIPTS = ("searchtools.js", "language_data.js", "searchindex.js")
#: The attribute of the one stylesheet link: the stylesheets it stands for, in the page's order.
SOURCES = "data-sources"
#: Private-use code points: where icon fonts put their icons.
PRIVATE_USE = ((0xE000, 0xF8FF), (0xF0000, 0x10FFFF))
#: At-rules that hold rules (purged inside); every other at-rule is kept as it is.
GROUPING_RULES = ("media", "supports", "layer", "container")
#: Pygments' classes of names, punctuation and spaces: the only code spans that may go (not prompts
#: or printed output, which sphinx-copybutton finds by their classes).
UNWRAPPABLE = frozenset(
    c
    for t, c in STANDARD_TYPES.items()
    if c and t in (Name, Name.Namespace, Name.Other, Punctuation, Punctuation.Marker, Whitespace, Text)
)


def memo_key() -> bytes:
    """What every kept output depends on besides its inputs: this stage's code and the
    environment (:func:`jaxbook.fingerprint.environment`: a rebuilt Pillow makes its WebP again)."""
    return (fingerprint.machinery(["publish.py"]) + fingerprint.environment()).encode()


class Memo:
    """Outputs of this stage by a hash of ``code`` and their inputs, kept in the doctree folder
    between builds; entries of a kind that the latest build did not use are deleted."""

    def __init__(self, app, kind: str, code: bytes):
        self.folder = Path(app.doctreedir) / "jaxbook-publish" / kind
        self.prefix, self.used = [code, kind.encode()], set()

    def get(self, compute, *inputs: bytes) -> bytes:
        path = self.folder / hashlib.sha256(b"\0".join([*self.prefix, *inputs])).hexdigest()
        self.used.add(path)
        if not path.is_file():
            self.folder.mkdir(parents=True, exist_ok=True)
            write_atomic(path, compute())
        return path.read_bytes()

    def prune(self) -> None:
        for old in self.folder.glob("*"):
            if old not in self.used:
                old.unlink(missing_ok=True)


# --- one page ------------------------------------------------------------------------------------


def visible_text(tag) -> str:
    """The text of ``tag``, whitespace collapsed, without what an ``aria-hidden="true"`` element
    holds (an icon's glyph)."""

    def shown(string) -> bool:
        inside = itertools.takewhile(lambda p: p is not tag.parent, string.parents)
        return not any(p.get("aria-hidden") == "true" for p in inside)

    strings = tag.find_all(string=lambda s: not isinstance(s, Comment))
    return " ".join(" ".join(s for s in strings if shown(s)).split())


def name_controls(soup, label: str = "Pages in {}") -> None:
    """Accessible names for a page's disclosure toggles, buttons and links (WCAG 4.1.2, 2.5.3):
    a ``<summary>`` with no text in a list item is named ``label`` with the words of the item's own
    link (the section it opens); paragraphs in a ``<summary>`` become spans (it holds phrasing
    content only); an ``aria-label`` that lacks the control's visible words is dropped from a
    ``<summary>`` (its words change with its state) and elsewhere starts with them, keeping what
    it said."""
    for summary in soup.find_all("summary"):
        for paragraph in summary.find_all("p"):
            paragraph.name = "span"
        if not visible_text(summary) and not summary.get("aria-label"):
            item = summary.find_parent("li")
            links = [a for a in item.find_all("a") if summary.parent not in a.parents] if item else []
            title = visible_text(links[0]) if links else ""
            summary["aria-label"] = label.format(title) if title else "More"
    for control in soup.find_all(["summary", "button", "a"], attrs={"aria-label": True}):
        text, old = visible_text(control), control["aria-label"]
        if any(c.isalnum() for c in text) and text.lower() not in old.lower():
            if control.name == "summary":
                del control["aria-label"]
            else:
                control["aria-label"] = text if old.lower() in text.lower() else f"{text} ({old})"


def lighter_scripts(soup, search_page: bool, unused: tuple[str, ...]) -> None:
    """Every external script of the page's head deferred (fetched while the page is parsed, run
    in order after it) but :data:`RUN_AT_ONCE`; ``unused`` scripts left out, and Sphinx's search
    scripts on every page but the search page."""
    for script in soup.find_all("script", src=True):  # a theme may load scripts in <body> too
        path = urlsplit(script["src"]).path
        if path.endswith(unused) or (not search_page and path.endswith(SEARCH_SCRIPTS)):
            script.decompose()
        elif script.find_parent("head") and not (
            {"defer", "async"} & script.attrs.keys() or script.get("type") == "module"
        ):
            if not path.endswith(RUN_AT_ONCE):
                script["defer"] = ""


def stylesheet_links(soup) -> list:
    """The page's links to stylesheets of the site's ``_static`` folder, for all media."""
    return [
        link
        for link in soup.find_all("link", rel="stylesheet", href=True)
        if "_static/" in urlsplit(link["href"]).path
        and not urlsplit(link["href"]).netloc
        and link.get("media", "all") == "all"
    ]


def linked_sources(soup) -> tuple[str, list[str]]:
    """The prefix of the page's links to ``_static`` (``../``, or ``/`` on the 404 page) and the
    stylesheets they name, under ``_static``, in order (a published page names them in
    :data:`SOURCES`)."""
    links = stylesheet_links(soup)
    if not links:
        return "", []
    prefix = urlsplit(links[0]["href"]).path.partition("_static/")[0]
    if len(links) == 1 and links[0].get(SOURCES):
        return prefix, links[0][SOURCES].split()
    return prefix, [urlsplit(link["href"]).path.partition("_static/")[2] for link in links]


def link_bundle(soup, prefix: str, sources: list[str], name: str) -> None:
    """The page's stylesheet links replaced by one link to the bundle ``name``, where the first was."""
    links = stylesheet_links(soup)
    link = soup.new_tag("link", rel="stylesheet", href=f"{prefix}_static/{name}")
    link[SOURCES] = " ".join(sources)
    links[0].replace_with(link)
    for other in links[1:]:
        other.decompose()


def plain_classes(css: str) -> frozenset[str]:
    """The classes among :data:`UNWRAPPABLE` that change nothing a span of them draws: every
    selector naming one is ``<S> .<class>`` and sets only the colour a rule of ``<S>`` sets."""
    declared, naming = {}, {}
    for rule in tinycss2.parse_stylesheet(css, skip_comments=True, skip_whitespace=True):
        if rule.type != "qualified-rule":
            continue
        found = tinycss2.parse_declaration_list(rule.content, skip_comments=True, skip_whitespace=True)
        values = {d.lower_name: tinycss2.serialize(d.value).strip() for d in found if d.type == "declaration"}
        for selector in selectors(rule):
            text = tinycss2.serialize(selector).strip()
            declared.setdefault(text, {}).update(values)
            for name in classes(selector):
                naming.setdefault(name, set()).add(text)

    def plain(name: str) -> bool:
        suffix = f" .{name}"
        return name in UNWRAPPABLE and all(
            text.endswith(suffix)
            and declared[text] == {"color": declared.get(text[: -len(suffix)], {}).get("color")}
            for text in naming[name]
        )

    return frozenset(filter(plain, naming))


def lighter_code(soup, plain: frozenset[str]) -> None:
    """The spans of ``plain`` classes in the page's ``<pre>`` blocks replaced by their text: fewer
    elements for the browser to style and lay out, the same pixels."""
    for pre in soup.find_all("pre"):
        for span in pre.find_all("span"):
            if list(span.attrs) == ["class"] and len(span["class"]) == 1 and span["class"][0] in plain:
                span.unwrap()
        pre.smooth()


def local_png(image, page: Path, outdir: Path) -> Path | None:
    """The site's PNG file that the ``<img>`` ``image`` of ``page`` shows, if it shows one."""
    source = urlsplit(image.get("src", ""))
    if source.scheme or source.netloc or not source.path.endswith(".png"):
        return None
    png = (page.parent / source.path).resolve()
    return png if png.is_file() and png.is_relative_to(outdir.resolve()) else None


def webp_figures(soup, page: Path, outdir: Path, webp: dict[Path, Path]) -> None:
    """Each ``<img>`` of a PNG that has a smaller WebP copy in ``webp`` shows the copy."""
    for image in soup.find_all("img", src=True):
        if (png := local_png(image, page, outdir)) in webp:
            image["src"] = posixpath.join(posixpath.dirname(urlsplit(image["src"]).path), webp[png].name)


def webp_image(png: bytes) -> bytes:
    """The lossless WebP of the image ``png``: the same pixels, even where transparent; the same
    bytes for the same input."""
    from PIL import Image

    out = io.BytesIO()
    Image.open(io.BytesIO(png)).save(out, format="WEBP", lossless=True, quality=100, method=5, exact=True)
    return out.getvalue()


# --- stylesheets ---------------------------------------------------------------------------------


def children(node) -> list[list]:
    """The lists of component values inside ``node`` (a function's, a block's or a rule's)."""
    found = (getattr(node, name, None) for name in ("arguments", "content", "prelude"))
    return [child for child in found if isinstance(child, list)]


def rebased_urls(nodes: list, source: str) -> None:
    """Rewrite in place the relative ``url()`` values of ``nodes`` (tinycss2 component values of
    the stylesheet ``source``, a path under ``_static``) so that they hold from ``_static``."""
    for i, node in enumerate(nodes):
        url = None
        if node.type == "url":
            url = node.value
        elif node.type == "function" and node.lower_name == "url":
            url = next((a.value for a in node.arguments if a.type == "string"), None)
        if url is not None and not urlsplit(url).scheme and not url.startswith(("/", "#")):
            new = posixpath.normpath(posixpath.join(posixpath.dirname(source), url))
            nodes[i] = tinycss2.ast.URLToken(
                node.source_line, node.source_column, new, f"url({serialize_url(new)})"
            )
        for child in children(node):
            rebased_urls(child, source)


def inlined(static: Path, source: str, seen: tuple[str, ...] = ()) -> list:
    """The rules (tinycss2) of ``_static/<source>`` with its ``@import`` rules replaced by the rules
    they import and its relative ``url()`` values rewritten to hold from ``_static``."""
    if source in seen:
        raise ValueError(f"_static/{source}: its @imports form a circle ({' -> '.join(seen)})")
    text = (static / source).read_text(encoding="utf-8")
    rules = []
    for rule in tinycss2.parse_stylesheet(text, skip_comments=True, skip_whitespace=True):
        if rule.type == "error":
            raise ValueError(f"_static/{source} (line {rule.source_line}): {rule.message}")
        if rule.type == "at-rule" and rule.lower_at_keyword == "charset":
            continue  # the bundle is UTF-8, as every stylesheet of the site
        if rule.type == "at-rule" and rule.lower_at_keyword == "import":
            target = [t for t in rule.prelude if t.type in ("string", "url")]
            if len(target) != 1 or [t for t in rule.prelude if t.type not in ("string", "url", "whitespace")]:
                raise ValueError(f"_static/{source}: an @import the bundle cannot inline: {rule.serialize()}")
            imported = posixpath.normpath(posixpath.join(posixpath.dirname(source), target[0].value))
            rules += inlined(static, imported, (*seen, source))
            continue
        rebased_urls([rule], source)
        rules.append(rule)
    return rules


def selectors(rule) -> list[list]:
    """The selectors of a qualified rule: its prelude's tokens split at the top-level commas."""
    found, current = [], []
    for token in rule.prelude:
        if token.type == "literal" and token.value == ",":
            found.append(current)
            current = []
        else:
            current.append(token)
    return [*found, current]


def classes(selector: list) -> list[str]:
    """The class names ``selector`` needs outside parentheses and brackets (``.a:not(.b)``: ``a``)."""
    return [
        token.value
        for before, token in zip([None, *selector], selector)
        if token.type == "ident" and before is not None and before.type == "literal" and before.value == "."
    ]


def purged(rules: list, words: set[str], composed: tuple[str, ...] = ()) -> list:
    """``rules`` without the selectors, and the rules, that need a class no page or script has
    (but one beginning with a prefix of ``composed``: classes the theme's scripts compose)."""
    kept = []
    for rule in rules:
        if rule.type == "qualified-rule":
            alive = [
                s for s in selectors(rule) if all(c in words or c.startswith(composed) for c in classes(s))
            ]
            if alive:
                prelude = ",".join(tinycss2.serialize(s).strip() for s in alive)
                rule.prelude = tinycss2.parse_component_value_list(prelude)
                kept.append(rule)
        elif rule.type == "at-rule" and rule.lower_at_keyword in GROUPING_RULES and rule.content is not None:
            inner = tinycss2.parse_rule_list(rule.content, skip_comments=True, skip_whitespace=True)
            if inner := purged(inner, words, composed):
                rule.content = tinycss2.parse_component_value_list(tinycss2.serialize(inner))
                kept.append(rule)
        else:
            kept.append(rule)  # @font-face, @keyframes ...
    return kept


def drawn_code_points(nodes: list) -> set[int]:
    """The code points that the strings of ``nodes`` (and of the values inside them) hold: what
    the stylesheet draws itself, icons among them (``content: "\\f078"``, ``--fa: "\\f078"``)."""
    found = set()
    for node in nodes:
        if node.type == "string":
            found.update(map(ord, node.value))
        for child in children(node):
            found |= drawn_code_points(child)
    return found


def private(code_point: int) -> bool:
    return any(low <= code_point <= high for low, high in PRIVATE_USE)


def subset_font(font: bytes, drawn: set[int]) -> bytes:
    """The woff2 ``font`` with only the icons of ``drawn``: an icon font (mostly private-use code
    points) keeps nothing else; another font keeps its text too. The same bytes for the same inputs."""
    from fontTools import subset
    from fontTools.ttLib import TTFont

    ttfont = TTFont(io.BytesIO(font), recalcTimestamp=False)
    mapped = set(ttfont.getBestCmap())
    icon_font = 2 * sum(map(private, mapped)) > len(mapped)
    options = subset.Options()
    options.flavor, options.layout_features = "woff2", ["*"]
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=sorted(c for c in mapped if c in drawn or not (icon_font or private(c))))
    subsetter.subset(ttfont)
    out = io.BytesIO()
    ttfont.flavor = "woff2"
    ttfont.save(out)
    return out.getvalue()


def subset_fonts(rules: list, static: Path, memo: Memo) -> None:
    """Point each woff2 ``url()`` of the ``@font-face`` rules of ``rules`` at a copy of the font
    that holds only the icons ``rules`` draw, written beside it; earlier subsets are deleted."""
    drawn = drawn_code_points(rules)
    for rule in rules:
        if rule.type != "at-rule" or rule.lower_at_keyword != "font-face":
            continue
        for i, node in enumerate(rule.content or []):
            if node.type == "url" and node.value.endswith(".woff2") and (static / node.value).is_file():
                font = (static / node.value).read_bytes()
                small = memo.get(lambda: subset_font(font, drawn), font, repr(sorted(drawn)).encode())
                stem, folder = Path(node.value).stem, static / Path(node.value).parent
                name = f"{stem}.subset-{hashlib.sha256(small).hexdigest()[:12]}.woff2"
                for old in folder.glob(f"{stem}.subset-*.woff2"):
                    if old.name != name:
                        old.unlink()
                write_changed(folder / name, small)
                new = posixpath.join(posixpath.dirname(node.value), name)
                rule.content[i] = tinycss2.ast.URLToken(
                    node.source_line, node.source_column, new, f"url({new})"
                )


def bundle(static: Path, sources: list[str], words: set[str], fonts: Memo, composed=()) -> str:
    """The name of the bundle of ``sources`` (under ``static``), written there: their rules in the
    pages' order without those no page can use (:func:`purged`), with subset icon fonts."""
    kept = purged([r for s in sources for r in inlined(static, s)], words, composed)
    subset_fonts(kept, static, fonts)
    css = f"/* {' '.join(sources)} */\n{tinycss2.serialize(kept)}\n".encode()
    name = f"bundle-{hashlib.sha256(css).hexdigest()[:16]}.css"
    write_changed(static / name, css)
    return name


# --- the stage -----------------------------------------------------------------------------------


def publish(app, exception) -> None:
    """Rewrite the pages this build wrote, and write the bundles, fonts and figures they link."""
    if exception is not None or app.builder.format != "html":
        return
    outdir, config = Path(app.outdir), app.config
    static = outdir / "_static"
    code, composed = memo_key(), tuple(config.jaxbook_publish_composed_classes)
    memos = {kind: Memo(app, kind, code) for kind in ("font", "webp", "words")}
    pages = {}  # each page: its HTML, its parsed HTML (only its links if published before), and if new
    for page in built_html(outdir):
        html = page.read_text(encoding="utf-8")
        links = BeautifulSoup(html, "html.parser", parse_only=SoupStrainer("link"))
        if any(link.get(SOURCES) for link in stylesheet_links(links)):
            pages[page] = html, links, False
            continue
        soup = BeautifulSoup(html, "html.parser")
        if soup.head is not None:
            name_controls(soup, config.jaxbook_publish_toggle_label)
            lighter_scripts(
                soup, page == outdir / "search.html", tuple(config.jaxbook_publish_unused_scripts)
            )
            html = str(soup)
        pages[page] = html, soup, True

    def words_of(text: str) -> set[str]:
        found = memos["words"].get(
            lambda: "\n".join(sorted(set(re.findall(r"[\w-]+", text)))).encode(), text.encode()
        )
        return set(found.decode().split("\n"))

    script_words = set().union(*(words_of(p.read_text(encoding="utf-8")) for p in static.rglob("*.js")))
    words = script_words.union(*(words_of(html) for html, _, _ in pages.values()))
    figures = {
        local_png(i, p, outdir) for p, (_, soup, new) in pages.items() if new for i in soup.find_all("img")
    }
    webp = {}
    for png in sorted(figures - {None}):
        data = png.read_bytes()
        copy = memos["webp"].get(lambda: webp_image(data), data)
        if len(copy) < len(data):
            webp[png] = png.with_suffix(".webp")
            write_changed(webp[png], copy)
    bundles = {}
    plain = functools.cache(lambda name: plain_classes((static / name).read_text(encoding="utf-8")))
    for page, (html, soup, new) in pages.items():
        prefix, sources = linked_sources(soup)
        if not sources:
            continue
        key = " ".join(sources)
        name = bundles[key] = bundles.get(key) or bundle(static, sources, words, memos["font"], composed)
        if not new and stylesheet_links(soup)[0]["href"] == f"{prefix}_static/{name}":
            continue  # published by an earlier build, and its bundle is the same
        if new:
            lighter_code(soup, plain(name))
        else:
            soup = BeautifulSoup(html, "html.parser")
        link_bundle(soup, prefix, sources, name)
        webp_figures(soup, page, outdir, webp)
        write_changed(page, str(soup).encode())
    for old in static.glob("bundle-*.css"):
        if old.name not in bundles.values():
            old.unlink()
    for memo in memos.values():
        memo.prune()


def setup(app):
    # Scripts the theme links that no page needs (conf.py says which, and why).
    app.add_config_value("jaxbook_publish_unused_scripts", (), "html", types=(list, tuple))
    # Prefixes of the class names the theme's scripts compose at run time: never purged.
    app.add_config_value("jaxbook_publish_composed_classes", (), "html", types=(list, tuple))
    # The name of a section's toggle in a navigation list ({} is the section's link text).
    app.add_config_value("jaxbook_publish_toggle_label", "Pages in {}", "html", types=(str,))
    # Last: the theme writes its stylesheets (pygments.css) when the build finishes too.
    app.connect("build-finished", publish, priority=1000)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
