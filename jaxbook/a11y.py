"""Accessibility and page-weight fixes of the theme, applied when the site is written.

- Each collapsible toggle of the sidebar (a ``<summary>`` holding only a chevron icon) gets an
  accessible name, "Pages in <section>" (axe rule ``summary-name``). Upstream, pydata-sphinx-theme's
  ``toctree.py`` should give the ``<summary>`` it creates a label.
- A cell's HTML picture (the coloured sharding maps of ``jax.debug.visualize_array_sharding``,
  drawn by rich as text) becomes an image for assistive technology, named by the alt text the page
  gives the cell (``:mystnb: {image: {alt: "..."}}``, the option MyST-NB uses for image outputs):
  one mechanism for every picture a cell draws.
- MyST-NB's "Show code cell outputs" toggles are named by their visible text, and hold no
  paragraphs (invalid in a ``<summary>``).
- A cell's image (a matplotlib figure) carries its size and loads lazily.
- The theme's icons are drawn by its Font Awesome icon font (``_templates/layout.html`` drops the
  1.5 MB Font Awesome JavaScript bundle). At the end of the build the fonts are subset to the
  glyphs the site uses: those named by an ``fa-*`` class in a page and those that the stylesheets
  draw themselves (admonition, download and external-link icons). Every icon the reader saw
  before stays; each font shrinks from about 110 KB to a few KB.
"""

from __future__ import annotations

import hashlib
import io
import re
from html import escape, unescape
from pathlib import Path

from docutils import nodes
from sphinx.util import logging

logger = logging.getLogger(__name__)

#: The code that turns inputs into outputs: a cached output is used only while it is unchanged.
_CODE = hashlib.sha256(Path(__file__).read_bytes()).digest()


class Memo:
    """Outputs of this module's build-finished passes, by a hash of their inputs, kept in the
    doctree folder: a rebuild whose pages and theme files did not change re-uses them instead of
    parsing 376 KB of CSS, subsetting three fonts and reading the words of 6 MB of pages and scripts
    again (most of a no-op rebuild otherwise).
    Each kind of output has a folder of its own; entries of a kind not used by the latest build
    are deleted."""

    def __init__(self, app, kind: str):
        self.folder = Path(app.doctreedir) / "jaxbook-a11y" / kind
        self.kind, self.used = kind, set()

    def get(self, compute, *inputs: bytes) -> bytes:
        key = hashlib.sha256(b"\0".join([_CODE, self.kind.encode(), *inputs])).hexdigest()
        path = self.folder / key
        self.used.add(path)
        if path.is_file():
            return path.read_bytes()
        value = compute()
        self.folder.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_bytes(value)
        tmp.replace(path)
        return value

    def prune(self) -> None:
        for old in self.folder.glob("*"):
            if old not in self.used:
                old.unlink(missing_ok=True)


# The <summary> that pydata-sphinx-theme puts after a section's link in the navigation.
TOGGLE = re.compile(
    r'(?P<link><a class="(?:current )?reference internal" href="[^"]*">(?P<title>(?:(?!</a>).)*)</a>\s*'
    r"<details[^>]*>\s*)<summary>",
    re.S,
)
TAG = re.compile(r"<[^>]+>")


def name_toggles(html: str) -> str:
    """Give every sidebar section toggle the name "Pages in <section title>"."""

    def label(match: re.Match) -> str:
        title = " ".join(unescape(TAG.sub("", match["title"])).split())
        quoted = title.replace("&", "&amp;").replace('"', "&quot;")
        return f'{match["link"]}<summary aria-label="Pages in {quoted}">'

    return TOGGLE.sub(label, html)


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


def on_builder_inited(app) -> None:
    if app.builder.format != "html":
        return
    templates = app.builder.templates
    render = templates.render

    def render_fixed(template: str, context: dict) -> str:
        return fix_html(render(template, context))

    templates.render = render_fixed


# Font Awesome's CSS: `.fa-name{--fa:"\f078"}` per icon, and the theme's own icons as custom
# properties (`--pst-icon-download:"\f019"`), written as escapes or as the characters themselves.
ICON_RULE = re.compile(r'(?P<selectors>(?:\.fa-[a-z0-9-]+,?)+)\{--fa:"(?P<glyph>[^"]+)"')
CSS_GLYPH = re.compile(r'--pst-[a-z-]+:"(?P<glyph>[^"]+)"')
CLASSES = re.compile(r'class="([^"]*\bfa-[^"]*)"')
CLASS_NAME = re.compile(r"\bfa-([a-z0-9-]+)")


def css_characters(value: str) -> str:
    r"""A CSS string's characters: `\f078` escapes decoded."""
    return re.sub(r"\\([0-9a-fA-F]{1,6}) ?", lambda m: chr(int(m[1], 16)), value)


def used_glyphs(outdir: Path, css: str) -> set[int]:
    """Code points of every icon the built pages show."""
    by_name = {
        name: css_characters(m["glyph"])
        for m in ICON_RULE.finditer(css)
        for name in CLASS_NAME.findall(m["selectors"])
    }
    glyphs = {ch for m in CSS_GLYPH.finditer(css) for ch in css_characters(m["glyph"])}
    for page in outdir.rglob("*.html"):
        if page.relative_to(outdir).parts[0] == "_static":
            continue
        for classes in CLASSES.findall(page.read_text(encoding="utf-8")):
            for name in CLASS_NAME.findall(classes):
                glyphs.update(by_name.get(name, ""))
    return {ord(ch) for ch in glyphs if 0xE000 <= ord(ch) <= 0xF8FF or ord(ch) > 0xFFFF}


def subset_icon_fonts(app, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    static = Path(app.outdir) / "_static"
    stylesheet = static / "styles" / "pydata-sphinx-theme.css"
    fonts = sorted((static / "vendor" / "fontawesome" / "webfonts").glob("*.woff2"))
    if not stylesheet.is_file() or not fonts:
        return
    glyphs = used_glyphs(Path(app.outdir), stylesheet.read_text(encoding="utf-8"))
    import pydata_sphinx_theme

    theme_fonts = (
        Path(pydata_sphinx_theme.__file__).parent
        / "theme"
        / "pydata_sphinx_theme"
        / "static"
        / "vendor"
        / "fontawesome"
        / "webfonts"
    )
    memo = Memo(app, "font")
    for font_path in fonts:
        original = theme_fonts / font_path.name
        source = (original if original.is_file() else font_path).read_bytes()
        subset_font = memo.get(
            lambda: subset_font_bytes(source, glyphs), source, repr(sorted(glyphs)).encode()
        )
        if not font_path.is_file() or font_path.read_bytes() != subset_font:
            font_path.write_bytes(subset_font)
    memo.prune()
    logger.info("icon fonts subset to %d glyphs", len(glyphs))


def subset_font_bytes(font_bytes: bytes, glyphs: set[int]) -> bytes:
    """A woff2 font with only the glyphs of ``glyphs`` (code points); the same inputs give the same
    bytes (the font keeps its own date, not the time of the build)."""
    from fontTools import subset
    from fontTools.ttLib import TTFont

    options = subset.Options()
    options.flavor = "woff2"
    options.layout_features = ["*"]
    font = TTFont(io.BytesIO(font_bytes), recalcTimestamp=False)  # the same bytes every build
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=sorted(glyphs))
    subsetter.subset(font)
    buffer = io.BytesIO()
    font.flavor = "woff2"
    font.save(buffer)
    return buffer.getvalue()


# ---------------------------------------------------------------------------------------------
# Stylesheets without the rules that no page can use. The theme's stylesheet (376 KB) holds all of
# Bootstrap and a rule for each of Font Awesome's ~2000 icons. A rule is dropped when each of its
# selectors names, outside parentheses, a class that appears nowhere in the site: in no page and in
# no script (scripts add classes such as "show" at run time). Like PurgeCSS, the word list is a
# superset of the classes in use, so no used rule is lost.

SAFE_PREFIXES = ("bs-",)  # Bootstrap composes these class names at run time (bs-tooltip-auto)
WORD = re.compile(r"[\w-]+")


CLASS = re.compile(r"\.(-?[_a-zA-Z][\w-]*)")
COMMENT = re.compile(r"/\*.*?\*/", re.S)
GROUPING_RULES = ("@media", "@supports", "@layer", "@container")


def skip(css: str, i: int) -> int:
    """The index after the string or comment that starts at css[i] (or i + 1)."""
    if css[i] in "\"'":
        quote, i = css[i], i + 1
        while i < len(css) and css[i] != quote:
            i += 2 if css[i] == "\\" else 1
        return i + 1
    if css.startswith("/*", i):
        return css.index("*/", i) + 2
    return i + 1


def statements(css: str, start: int, end: int) -> list[tuple[str, tuple[int, int] | None, int, int]]:
    """The statements of css[start:end]: (prelude, (body start, body end) or None, start, end)."""
    found, i = [], start
    while i < end:
        j, parens = i, 0
        while j < end and not (css[j] in "{;" and parens == 0):
            parens += {"(": 1, ")": -1}.get(css[j], 0)
            j = skip(css, j)
        if j >= end or css[j] == ";":
            found.append((css[i : j + 1], None, i, min(j + 1, end)))
            i = j + 1
            continue
        k, depth = j + 1, 1
        while k < end and depth:
            depth += {"{": 1, "}": -1}.get(css[k], 0)
            k = skip(css, k)
        found.append((css[i:j], (j + 1, k - 1), i, k))
        i = k
    return found


def split_selectors(prelude: str) -> list[str]:
    """A selector list split at its top-level commas (not those inside :is(...) or [...])."""
    parts, depth, current = [], 0, ""
    for ch in prelude:
        depth += {"(": 1, "[": 1, ")": -1, "]": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += ch
    return parts + [current]


def outside_parentheses(selector: str) -> str:
    """The selector without what is inside (...) and [...]: `.a:not(.b)` gives `.a:not`."""
    kept, depth = "", 0
    for ch in selector:
        depth += {"(": 1, "[": 1, ")": -1, "]": -1}.get(ch, 0)
        if depth == 0 and ch not in ")]":
            kept += ch
    return kept


def alive(selector: str, words: set[str]) -> bool:
    """False when the selector needs a class that no page or script has."""
    selector = COMMENT.sub("", selector)  # "/* Name.Function */ .nf" names no class Function
    names = CLASS.findall(outside_parentheses(selector))
    # Every name is looked up, so that what a purge asks does not depend on the answers.
    return all([name in words or name.startswith(SAFE_PREFIXES) for name in names])


def purge(css: str, words: set[str], start: int = 0, end: int | None = None) -> str:
    """css[start:end] without the rules none of whose selectors can match."""
    kept = []
    end = len(css) if end is None else end
    for prelude, body, first, stop in statements(css, start, end):
        at_rule = prelude.strip().startswith("@")
        if body is None or at_rule and not prelude.strip().startswith(GROUPING_RULES):
            kept.append(css[first:stop])  # declarations, @font-face, @keyframes, @import ...
        elif at_rule:
            inner = purge(css, words, *body)
            if inner.strip():
                kept.append(prelude + "{" + inner + "}")
        else:
            selectors = [s for s in split_selectors(prelude) if alive(s, words)]
            if selectors:
                kept.append(",".join(selectors) + css[body[0] - 1 : stop])
    return "".join(kept)


def words_of(data: bytes) -> bytes:
    """The distinct words of a page or a script (UTF-8), one per line."""
    return "\n".join(sorted(set(WORD.findall(data.decode(errors="replace"))))).encode()


class Lookups(set):
    """A set of words that remembers every name looked up in it."""

    def __init__(self, words):
        super().__init__(words)
        self.names: set[str] = set()

    def __contains__(self, name) -> bool:
        self.names.add(name)
        return super().__contains__(name)


def purged_stylesheet(css: str, words: set[str], asked: Memo, kept: Memo) -> str:
    """``purge(css, words)``, kept by the stylesheet and by the answers the purge needs: which of
    the class names its selectors use are in ``words``. A word that no selector names (a new word
    of prose, a file's cache-busting hash) changes nothing, so the purge is not made again.
    ``asked`` keeps each stylesheet's class names, ``kept`` the purged stylesheets."""
    done = {}

    def purge_and_ask() -> bytes:
        lookups = Lookups(words)
        done["purged"] = purge(css, lookups)
        return "\n".join(sorted(lookups.names)).encode()

    names = asked.get(purge_and_ask, css.encode())
    answers = "\n".join(sorted(set(names.decode().split("\n")) & words)).encode()
    purged = kept.get(
        lambda: (done["purged"] if "purged" in done else purge(css, words)).encode(), css.encode(), answers
    )
    # Sphinx copies some stylesheets only when they are missing: the next build finds this one
    # purged in place. Purging it again gives it back unchanged (it names a subset of the names).
    asked.get(lambda: names, purged)
    kept.get(lambda: purged, purged, answers)
    return purged.decode()


def purge_stylesheets(app, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    outdir = Path(app.outdir)
    static = outdir / "_static"
    tokens: set[str] = set()
    found = Memo(app, "words")  # each file's words, kept while the file is unchanged
    for source in [*outdir.rglob("*.html"), *static.rglob("*.js")]:
        data = source.read_bytes()
        words = found.get(lambda: words_of(data), data)
        tokens.update(filter(None, words.decode().split("\n")))
    found.prune()
    asked, kept = Memo(app, "classes"), Memo(app, "css")
    before = after = 0
    for stylesheet in sorted(static.rglob("*.css")):
        if stylesheet.name.startswith("mystnb."):
            continue  # MyST-NB will not overwrite a changed copy: a warning in the next build
        css = stylesheet.read_text(encoding="utf-8")
        purged = purged_stylesheet(css, tokens, asked, kept)
        before, after = before + len(css), after + len(purged)
        if purged != css:
            stylesheet.write_text(purged, encoding="utf-8")
    asked.prune()
    kept.prune()
    logger.info("stylesheets: %d KB without unused rules (were %d KB)", after // 1000, before // 1000)


def setup(app):
    app.add_js_file("keyboard.js")  # in _static/: keyboard users keep the focus on the buttons
    app.connect("builder-inited", on_builder_inited)
    app.connect("doctree-read", on_doctree_read)
    app.connect("build-finished", subset_icon_fonts)
    app.connect("build-finished", purge_stylesheets)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
