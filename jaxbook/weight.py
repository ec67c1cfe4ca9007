"""Page weight: what the theme ships that no page uses is left out when the build finishes.

- **Icon fonts.** The theme's icons are drawn by its Font Awesome icon font
  (``_templates/layout.html`` drops the 1.5 MB Font Awesome JavaScript bundle). The fonts are
  subset to the glyphs the site uses: those named by an ``fa-*`` class in a page and those that
  the stylesheets draw themselves (admonition, download and external-link icons). Every icon the
  reader saw before stays; each font shrinks from about 110 KB to a few KB.
- **Stylesheets** lose the rules no page can use (:func:`purge`, on tinycss2's parse).
- **Images.** Each PNG of ``_images`` (the figures the pages' cells draw) also gets a lossless
  WebP copy, the same pixels in about half the bytes (:func:`webp_image`), and the pages show the
  copy wherever it is smaller (:func:`webp_sources`). The PNG stays, and the notebooks keep theirs.
- All are kept between builds (:class:`Memo`), by a hash of their inputs.
"""

from __future__ import annotations

import hashlib
import io
import re
from pathlib import Path

from sphinx.util import logging

from jaxbook.files import code_digest, write_atomic, write_changed
from jaxbook.pages import built_html
from jaxbook.speed import BUNDLE

logger = logging.getLogger(__name__)

#: The libraries whose outputs :class:`Memo` keeps: fonts (fontTools, with Brotli for woff2) and
#: purged stylesheets (tinycss2). The WebP copies are keyed by Pillow's and libwebp's versions.
LIBRARIES = ("fonttools", "brotli", "tinycss2")


#: This module and :data:`LIBRARIES`: a cached output is used only while this is unchanged.
_CODE = code_digest(Path(__file__), LIBRARIES)


class Memo:
    """Outputs of this module's build-finished passes, by a hash of their inputs, kept in the
    doctree folder: a rebuild whose pages and theme files did not change re-uses them instead of
    parsing 376 KB of CSS, subsetting three fonts and reading the words of 6 MB of pages and scripts
    again (most of a no-op rebuild otherwise).
    Each kind of output has a folder of its own; entries of a kind not used by the latest build
    are deleted."""

    def __init__(self, app, kind: str):
        self.folder = Path(app.doctreedir) / "jaxbook-weight" / kind
        self.kind, self.used = kind, set()

    def get(self, compute, *inputs: bytes) -> bytes:
        key = hashlib.sha256(b"\0".join([_CODE, self.kind.encode(), *inputs])).hexdigest()
        path = self.folder / key
        self.used.add(path)
        if path.is_file():
            return path.read_bytes()
        value = compute()
        self.folder.mkdir(parents=True, exist_ok=True)
        write_atomic(path, value)
        return value

    def prune(self) -> None:
        for old in self.folder.glob("*"):
            if old not in self.used:
                old.unlink(missing_ok=True)


# Font Awesome's CSS: `.fa-name{--fa:"\f078"}` per icon, and the theme's own icons as custom
# properties (`--pst-icon-download:"\f019"`), written as escapes or as the characters themselves.
ICON_RULE = re.compile(r'(?P<selectors>(?:\.fa-[a-z0-9-]+,?)+)\{--fa:"(?P<glyph>[^"]+)"')
CSS_GLYPH = re.compile(r'--pst-[a-z-]+:"(?P<glyph>[^"]+)"')
CLASSES = re.compile(r'class="([^"]*\bfa-[^"]*)"')
CLASS_NAME = re.compile(r"\bfa-([a-z0-9-]+)")
#: Font Awesome's classes that style an icon instead of naming one: its families and weights,
#: sizes, fixed width, animations, rotations, stacking and list layout.
STYLE_CLASS = re.compile(
    r"(solid|regular|light|thin|brands|duotone|sharp|fw|[0-9]?x[sl]|sm|lg|[0-9]+x|spin(-[a-z]+)?|"
    r"beat(-fade)?|bounce|fade|flip(-[a-z]+)?|shake|pulse|rotate-[a-z0-9]+|border|inverse|"
    r"pull-(left|right|start|end)|stack(-[12]x)?|ul|li|width-auto)"
)


def css_characters(value: str) -> str:
    r"""A CSS string's characters: `\f078` escapes decoded."""
    return re.sub(r"\\([0-9a-fA-F]{1,6}) ?", lambda m: chr(int(m[1], 16)), value)


def used_glyphs(outdir: Path, css: str) -> set[int]:
    """Code points of every icon the built pages show. Raises ``ValueError`` for an icon class
    (``fa-name``, not a style such as ``fa-solid``) that names no icon of ``css``: the icon would be
    missing from the subset font (the theme's stylesheet changed, or a page names an unknown icon)."""
    by_name = {
        name: css_characters(m["glyph"])
        for m in ICON_RULE.finditer(css)
        for name in CLASS_NAME.findall(m["selectors"])
    }
    glyphs = {ch for m in CSS_GLYPH.finditer(css) for ch in css_characters(m["glyph"])}
    for page in built_html(outdir):
        for classes in CLASSES.findall(page.read_text(encoding="utf-8")):
            for name in CLASS_NAME.findall(classes):
                if name not in by_name and not STYLE_CLASS.fullmatch(name):
                    raise ValueError(
                        f"{page.relative_to(outdir)}: the icon class fa-{name} names no icon of the theme's "
                        "stylesheet (jaxbook/weight.py ICON_RULE): an unknown icon, or a theme upgrade changed "
                        "how its stylesheet names them"
                    )
                glyphs.update(by_name.get(name, ""))
    return {ord(ch) for ch in glyphs if 0xE000 <= ord(ch) <= 0xF8FF or ord(ch) > 0xFFFF}


def subset_icon_fonts(app, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    static = Path(app.outdir) / "_static"
    stylesheet = static / "styles" / "pydata-sphinx-theme.css"
    fonts = sorted((static / "vendor" / "fontawesome" / "webfonts").glob("*.woff2"))
    if not stylesheet.is_file() or not fonts:  # a theme upgrade moved them: say so, skip nothing silently
        logger.warning(
            f"the theme's stylesheet {stylesheet.relative_to(app.outdir)} or its Font Awesome fonts "
            "(_static/vendor/fontawesome/webfonts/*.woff2) are not where jaxbook/weight.py looks: "
            "update it for the theme's new layout",
            type="jaxbook",
            subtype="theme",
        )
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
        write_changed(font_path, subset_font)
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


#: At-rules that hold rules (purged inside); every other at-rule is kept as it is.
GROUPING_RULES = ("media", "supports", "layer", "container")


def selector_list(prelude: list) -> list[list]:
    """A rule's selectors: its prelude's tokens (tinycss2) split at the top-level commas (those in
    ``:is(...)`` or ``[...]`` are inside blocks, not top-level tokens)."""
    selectors, current = [], []
    for token in prelude:
        if token.type == "literal" and token.value == ",":
            selectors.append(current)
            current = []
        else:
            current.append(token)
    return selectors + [current]


def class_names(selector: list) -> list[str]:
    """The class names a selector needs, outside parentheses and brackets: ``.a:not(.b)`` needs
    ``a`` (a ``.`` followed by an identifier, among the selector's top-level tokens)."""
    return [
        token.value
        for before, token in zip([None, *selector], selector)
        if token.type == "ident" and before is not None and before.type == "literal" and before.value == "."
    ]


def alive(selector: list, words: set[str]) -> bool:
    """False when the selector needs a class that no page or script has."""
    # Every name is looked up, so that what a purge asks does not depend on the answers.
    return all([name in words or name.startswith(SAFE_PREFIXES) for name in class_names(selector)])


def purge_rules(rules: list, words: set[str]) -> str:
    """The CSS of ``rules`` (tinycss2 nodes) without the rules none of whose selectors can match."""
    import tinycss2

    kept = []
    for rule in rules:
        if rule.type == "qualified-rule":
            selectors = [s for s in selector_list(rule.prelude) if alive(s, words)]
            if selectors:
                prelude = ",".join(tinycss2.serialize(s).strip() for s in selectors)
                kept.append(prelude + "{" + tinycss2.serialize(rule.content) + "}")
        elif rule.type == "at-rule" and rule.lower_at_keyword in GROUPING_RULES and rule.content is not None:
            inner = purge_rules(
                tinycss2.parse_rule_list(rule.content, skip_comments=True, skip_whitespace=True), words
            )
            if inner.strip():
                kept.append(f"@{rule.at_keyword}{tinycss2.serialize(rule.prelude)}{{{inner}}}")
        elif rule.type == "at-rule":
            kept.append(rule.serialize())  # @font-face, @keyframes, @import, @charset ...
        elif rule.type == "error":
            raise ValueError(f"a stylesheet cannot be parsed (line {rule.source_line}): {rule.message}")
    return "".join(kept)


def purge(css: str, words: set[str]) -> str:
    """``css`` without the rules none of whose selectors can match (parsed by tinycss2; comments
    dropped)."""
    import tinycss2

    return purge_rules(tinycss2.parse_stylesheet(css, skip_comments=True, skip_whitespace=True), words)


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
        if BUNDLE.fullmatch(stylesheet.name):
            continue  # speed.py's bundle of the purged stylesheets, written after this
        css = stylesheet.read_text(encoding="utf-8")
        purged = purged_stylesheet(css, tokens, asked, kept)
        before, after = before + len(css), after + len(purged)
        if purged != css:
            stylesheet.write_text(purged, encoding="utf-8")
    asked.prune()
    kept.prune()
    logger.info("stylesheets: %d KB without unused rules (were %d KB)", after // 1000, before // 1000)


def webp_image(png: bytes) -> bytes:
    """The lossless WebP of the image ``png``: the same pixels (``exact``: even where transparent);
    the same input gives the same bytes. Effort ``method=5``: on the book's five figures it writes
    the same bytes as the greatest (6) in a tenth of the time (2.5 s against 26 s for the five,
    on a busy 2-core machine), and 4 would add 0.2 %."""
    from PIL import Image

    out = io.BytesIO()
    Image.open(io.BytesIO(png)).save(out, format="WEBP", lossless=True, quality=100, method=5, exact=True)
    return out.getvalue()


#: An image of a page from the site's ``_images`` folder: ``<img ... src="../_images/<name>.png"``.
IMAGE_SOURCE = re.compile(r'(<img\b[^>]*?\bsrc="(?:\.\./)*_images/)([^"/]+)\.png"')


def webp_sources(html: str, names: set[str]) -> str:
    """``html`` with each ``<img>`` of an ``_images`` PNG whose name (without ``.png``) is in
    ``names`` showing its WebP copy instead."""
    return IMAGE_SOURCE.sub(lambda m: f'{m[1]}{m[2]}.webp"' if m[2] in names else m[0], html)


def smaller_images(app, exception) -> None:
    """Write the WebP copy of each PNG of ``_images`` and make the pages show it where it is smaller."""
    if exception is not None or app.builder.format != "html":
        return
    from PIL import __version__ as pillow, features

    out = Path(app.outdir)
    encoder = f"Pillow {pillow} libwebp {features.version('webp')}".encode()
    memo, smaller, before, after = Memo(app, "webp"), set(), 0, 0
    for png in sorted((out / "_images").glob("*.png")):
        data = png.read_bytes()
        webp = memo.get(lambda: webp_image(data), encoder, data)
        if len(webp) >= len(data):
            continue
        write_changed(png.with_suffix(".webp"), webp)
        smaller.add(png.stem)
        before, after = before + len(data), after + len(webp)
    memo.prune()
    for page in built_html(out):
        html = page.read_text(encoding="utf-8")
        shown = webp_sources(html, smaller)
        if shown != html:
            write_atomic(page, shown.encode("utf-8"))
    if smaller:
        logger.info("images: %d as WebP, %d KB (PNG: %d KB)", len(smaller), after // 1000, before // 1000)


def setup(app):
    app.connect("build-finished", subset_icon_fonts)
    app.connect("build-finished", smaller_images)
    app.connect("build-finished", purge_stylesheets)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
