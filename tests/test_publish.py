"""The publishing stage (jaxbook.publish) and the math renderer, on small sites (no Sphinx build):
what a reader gets from a page, whatever markup the theme writes."""

from __future__ import annotations

import io
import shutil
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from bs4 import BeautifulSoup

from jaxbook import publish
from jaxbook.mathml import to_mathml

#: Reads none of the book's content (tests/pass_cache.py): an edited page or snippet does not re-check it.
pytestmark = pytest.mark.inputs()


def soup(html: str) -> BeautifulSoup:
    return BeautifulSoup(html, "html.parser")


def test_math_becomes_mathml_with_its_latex_as_alt_text():
    markup = to_mathml(r'\frac{\partial f}{\partial x} = "q"', "block", None)
    assert markup.startswith("<math ") and markup.endswith("</math>")
    assert 'display="block"' in markup and "<mfrac>" in markup
    assert r'alttext="\frac{\partial f}{\partial x} = &quot;q&quot;"' in markup


def test_a_toggle_without_text_is_named_after_its_section_and_keeps_a_name_it_has():
    page = soup(
        '<ul><li><a href="p/index.html">Study <code>plan</code> &amp; more</a><details><summary>'
        '<span class="toggle"><i class="icon"></i></span></summary><ul></ul></details></li>'
        '<li><details><summary aria-label="Open"><i></i></summary></details></li>'
        "<li><details><summary><i></i></summary></details></li></ul>"
    )
    publish.name_controls(page)
    names = [s.get("aria-label") for s in page.find_all("summary")]
    assert names == ["Pages in Study plan & more", "Open", "More"]
    again = str(page)
    publish.name_controls(page)
    assert str(page) == again  # a page published twice is the same page
    other = soup('<li><a href="g.html">Guide</a><button></button><details><summary></summary></details></li>')
    publish.name_controls(other, "Seiten in {}")  # conf.py's label; the item's link, wherever it is
    assert other.find("summary")["aria-label"] == "Seiten in Guide"


def test_a_control_is_named_first_by_the_words_it_shows_and_a_summary_holds_phrasing_content_only():
    """A label that lacks the visible words starts with them and keeps what it said (WCAG 2.5.3);
    an icon's glyph marked aria-hidden is no visible word, so a control showing only it keeps its
    label; a summary's label goes (its words change with its state)."""
    page = soup(
        '<details class="hide"><summary aria-label="Toggle hidden content"><p class="collapsed t">'
        'Show code cell outputs</p><p class="expanded t">Hide code cell outputs</p></summary>'
        "<div>4.0</div></details>"
        '<button aria-label="Search" class="s"><i></i> <span>Search</span> <kbd>Ctrl</kbd>+<kbd>K</kbd></button>'
        '<button aria-label="Color mode"><i class="fa-sun"></i></button>'
        '<button aria-label="Collapse the sidebar"><svg aria-hidden="true"><text>x</text></svg></button>'
        '<button aria-label="Copy"><span aria-hidden="true">\u2398</span> Copy code</button>'
        '<button aria-label="Search"><i aria-hidden="true">Q</i><span>Find</span></button>'
        '<a aria-label="Go to the next page: grad" href="grad.html">Next: grad</a>'
        '<a aria-label="Link to this heading" href="#a">#</a>'
        '<a aria-label="Open the grad page" href="grad.html">grad</a>'
        '<a aria-label="Open grad" href="g.html"><i aria-hidden="true">\u2192</i>grad</a>'
    )
    publish.name_controls(page)
    summary = page.find("summary")
    spans = [span["class"] for span in summary.find_all("span")]
    assert not summary.find("p") and spans == [["collapsed", "t"], ["expanded", "t"]]
    assert "aria-label" not in summary.attrs  # its name is "Show code cell outputs ..."
    assert [c.get("aria-label") for c in page.find_all(["button", "a"])] == [
        "Search Ctrl + K",
        "Color mode",
        "Collapse the sidebar",
        "Copy code",
        "Find (Search)",
        "Next: grad (Go to the next page: grad)",
        "Link to this heading",
        "Open the grad page",
        "Open grad",
    ]


def head(scripts: str) -> BeautifulSoup:
    unused = "<script src='_static/scripts/fontawesome.js'></script>"  # some themes load in <body>
    return soup(f"<html><head>{scripts}</head><body><script src='late.js'></script>{unused}</body></html>")


def test_no_script_blocks_the_first_paint_and_scripts_no_page_uses_are_left_out():
    scripts = (
        '<script src="_static/documentation_options.js?v=1"></script>'
        '<script src="_static/doctools.js?v=2"></script><script defer src="a.js"></script>'
        '<script async src="b.js"></script><script type="module" src="c.js"></script>'
        "<script>DOCUMENTATION_OPTIONS.pagename = 'x';</script>"
        '<script src="../_static/scripts/fontawesome.js?digest=1"></script>'
        '<script src="../_static/searchtools.js"></script><script src="../searchindex.js"></script>'
    )
    page, search = head(scripts), head(scripts)
    publish.lighter_scripts(page, False, ("_static/scripts/fontawesome.js",))
    publish.lighter_scripts(search, True, ("_static/scripts/fontawesome.js",))
    deferred = {s["src"]: "defer" in s.attrs for s in page.head.find_all("script", src=True)}
    assert deferred == {
        "_static/documentation_options.js?v=1": False,  # the inline scripts use it at once
        "_static/doctools.js?v=2": True,
        "a.js": True,
        "b.js": False,  # async: it never blocks
        "c.js": False,  # a module is deferred by the browser
    }
    assert "defer" not in page.body.script.attrs  # a script of the body blocks nothing above it
    assert [s["src"] for s in page.body.find_all("script")] == ["late.js"]  # unused, even in <body>
    kept = [s["src"] for s in search.head.find_all("script", src=True)]
    assert kept == [*deferred, "../_static/searchtools.js", "../searchindex.js"]  # the search page's own


def rules(css: str) -> list:
    import tinycss2

    return tinycss2.parse_stylesheet(css, skip_comments=True, skip_whitespace=True)


CSS = (
    ".used{color:red}.unused{color:blue}.used>p{margin:0}.btn:not(.unused){x:1}"
    "@media (min-width:1px){.used{a:c}.unused{b:c}}@media print{.unused{z:1}}"
    "@font-face{font-family:X;src:url(x.woff2)}.used .nf,.used .unused{c:d}"
    '.bs-tooltip-auto{e:f}[data-x="a{b}"] .used{g:h}'
)


def test_the_purge_keeps_every_rule_a_page_can_use():
    import tinycss2

    words = {"used", "nf", "btn", "p"}
    kept = tinycss2.serialize(publish.purged(rules(CSS), words, ("bs-",)))
    for rule in (
        ".used{color:red}",
        ".used>p{margin:0}",
        ".btn:not(.unused){x:1}",
        "@media (min-width:1px){.used{a:c}}",
        "@font-face{font-family:X;src:url(x.woff2)}",
        ".used .nf{c:d}",
        ".bs-tooltip-auto{e:f}",
        '[data-x="a{b}"] .used{g:h}',
    ):
        assert rule in kept, (rule, kept)
    assert ".unused{" not in kept and ".used .unused" not in kept and "print" not in kept
    assert tinycss2.serialize(publish.purged(rules(kept), words, ("bs-",))) == kept
    assert ".bs-tooltip-auto" not in tinycss2.serialize(publish.purged(rules(CSS), words))  # not declared


def icon_font(code_points: list[int], text: str = "A") -> bytes:
    """A woff2 font with a square glyph for each of ``code_points`` and each letter of ``text``."""
    from fontTools.fontBuilder import FontBuilder
    from fontTools.pens.ttGlyphPen import TTGlyphPen

    code_points = [*code_points, *map(ord, text)]
    names = [".notdef", *(f"i{c:x}" for c in code_points)]
    pen = TTGlyphPen(None)
    pen.moveTo((0, 0)), pen.lineTo((0, 500)), pen.lineTo((500, 500)), pen.closePath()
    builder = FontBuilder(1000, isTTF=True)
    builder.setupGlyphOrder(names)
    builder.setupCharacterMap({c: f"i{c:x}" for c in code_points})
    builder.setupGlyf({name: pen.glyph() for name in names})
    builder.setupHorizontalMetrics({name: (500, 0) for name in names})
    builder.setupHorizontalHeader(ascent=800, descent=-200)
    builder.setupNameTable({"familyName": "Icons", "styleName": "Regular"})
    builder.setupOS2(), builder.setupPost()
    out = io.BytesIO()
    builder.font.flavor = "woff2"
    builder.font.save(out)
    return out.getvalue()


def small_site(tmp_path: Path):
    """A built site of two pages at two depths, linking three stylesheets (one imports a fourth;
    one loads an icon font whose two icons one page shows one of), and a Sphinx app for it."""
    out = tmp_path / "html"
    files = {
        "_static/styles/theme.css": '@import "../basic.css";\n.t{color:red}',
        "_static/basic.css": "@charset \"utf-8\";\n/* base */ .b{background:url('img/x.png')}",
        "_static/styles/icons.css": (
            "@font-face{font-family:i;src:url(../vendor/icons.woff2) format('woff2')}"
            '.i-a{--icon:"\\e001"}.i-b{--icon:"\\e002"}@media (min-width:9px){.m{background:url(../m.svg)}}'
        ),
        "_static/own.css": ".o{color:blue}.shown{color:green}.never{color:red}",
        "_static/x.js": 'element.classList.add("shown")',
    }
    for name, text in files.items():
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_text(text, encoding="utf-8")
    (out / "_static/vendor").mkdir()
    (out / "_static/vendor/icons.woff2").write_bytes(icon_font([0xE001, 0xE002]))
    links = (
        '<link href="{p}_static/styles/theme.css?digest=1" rel="stylesheet" />'
        '<link href="{p}_static/styles/icons.css?digest=1" rel="stylesheet" />'
        '<link rel="stylesheet" type="text/css" href="{p}_static/own.css?v=2" />'
        '<link rel="stylesheet" href="https://example.org/x.css" />'
    )
    for page, prefix in [("index.html", ""), ("guide/grad.html", "../")]:
        (out / page).parent.mkdir(parents=True, exist_ok=True)
        (out / page).write_text(
            f"<!DOCTYPE html><html><head><title>t</title>{links.format(p=prefix)}"
            '<script src="x.js"></script></head><body><p class="b t m o i-a">text</p></body></html>',
            encoding="utf-8",
        )
    app = SimpleNamespace(
        outdir=str(out),
        doctreedir=str(tmp_path / "doctrees"),
        builder=SimpleNamespace(format="html"),
        config=SimpleNamespace(
            jaxbook_publish_unused_scripts=[],
            jaxbook_publish_composed_classes=[],
            jaxbook_publish_toggle_label="Pages in {}",
        ),
    )
    return app, out


def the_bundle(out: Path) -> str:
    (bundle,) = (out / "_static").glob("bundle-*.css")
    return bundle.read_text(encoding="utf-8")


def test_a_page_links_one_stylesheet_holding_its_rules_in_the_order_it_linked_them(tmp_path):
    app, out = small_site(tmp_path)
    publish.publish(app, None)
    css = the_bundle(out)
    order = [css.index(rule) for rule in (".b{", ".t{", "@font-face", ".i-a{", ".m{", ".o{")]
    assert order == sorted(order), css
    assert "url(img/x.png)" in css and "url(m.svg)" in css  # urls hold from _static
    assert "@import" not in css and "@charset" not in css and "/* base" not in css
    assert ".i-b" not in css and ".never" not in css  # no page shows it
    assert ".shown{" in css  # a script adds it
    for page, prefix in [("index.html", ""), ("guide/grad.html", "../")]:
        page = soup((out / page).read_text(encoding="utf-8"))
        hrefs = [link["href"] for link in page.find_all("link", rel="stylesheet")]
        bundle = next((out / "_static").glob("bundle-*.css")).name
        assert hrefs == [f"{prefix}_static/{bundle}", "https://example.org/x.css"]
        assert page.head.script["defer"] == ""


def test_the_icon_font_holds_the_icons_the_pages_show_and_its_text(tmp_path):
    from fontTools.ttLib import TTFont

    app, out = small_site(tmp_path)
    publish.publish(app, None)
    (font,) = (out / "_static/vendor").glob("icons.subset-*.woff2")
    assert f"url(vendor/{font.name})" in the_bundle(out)
    assert set(TTFont(font).getBestCmap()) == {0xE001}  # an icon font: its "A" is not drawn
    source = (out / "_static/vendor/icons.woff2").read_bytes()
    first = publish.subset_font(source, {0xE001})
    time.sleep(1.1)  # a font's date has a resolution of one second
    assert publish.subset_font(source, {0xE001}) == first  # the same file in every build
    text = publish.subset_font(icon_font([0xE001], "AB"), set())
    assert set(TTFont(io.BytesIO(text)).getBestCmap()) == {ord("A"), ord("B")}  # a text font keeps its text
    assert publish.drawn_code_points(rules('.x{content:"\\f078 a"}:root{--i:"\\e005"}')) == {
        0xF078,
        0xE005,
        ord("a"),
    }  # an escape ends at its space


def test_a_page_of_an_earlier_build_links_the_bundle_of_the_stylesheets_as_they_are_now(tmp_path):
    app, out = small_site(tmp_path)
    publish.publish(app, None)
    first = (out / "index.html").read_text(encoding="utf-8")
    publish.publish(app, None)  # nothing changed: nothing is rewritten
    assert (out / "index.html").read_text(encoding="utf-8") == first
    (out / "_static/basic.css").write_text(".b{color:teal}", encoding="utf-8")  # imported by theme.css
    publish.publish(app, None)  # a later build that rewrote no page
    assert ".b{color:teal}" in the_bundle(out)
    assert next((out / "_static").glob("bundle-*.css")).name in (out / "index.html").read_text()


def test_a_stylesheet_the_bundle_cannot_hold_fails_the_build(tmp_path):
    app, out = small_site(tmp_path)
    (out / "_static/basic.css").write_text('@import "styles/theme.css";', encoding="utf-8")
    with pytest.raises(ValueError, match="circle"):
        publish.publish(app, None)
    (out / "_static/basic.css").write_text('@import "x.css" print;', encoding="utf-8")
    with pytest.raises(ValueError, match="cannot inline"):
        publish.publish(app, None)


def test_outputs_are_reused_only_for_the_same_inputs_and_code(tmp_path):
    """A no-op rebuild re-uses the subset fonts, figures and words; new inputs, or another code
    or environment, recompute; an entry the latest build did not use is deleted."""
    app, calls = SimpleNamespace(doctreedir=str(tmp_path)), []

    def compute(value):
        return lambda: calls.append(value) or value

    memo = publish.Memo(app, "css", b"code")
    assert memo.get(compute(b"one"), b"css", b"words") == b"one"
    assert memo.get(compute(b"two"), b"css", b"words") == b"one"
    assert memo.get(compute(b"three"), b"css", b"other words") == b"three"
    assert publish.Memo(app, "css", b"new code").get(compute(b"four"), b"css", b"words") == b"four"
    assert calls == [b"one", b"three", b"four"]
    later = publish.Memo(app, "css", b"code")
    later.get(compute(b"five"), b"css", b"other words")
    later.prune()
    assert len(list((tmp_path / "jaxbook-publish" / "css").iterdir())) == 1


def figure_png(size=(64, 40)) -> bytes:
    """A PNG with colours, soft edges and transparent pixels of different colours."""
    from PIL import Image

    image = Image.new("RGBA", size)
    image.putdata(
        [
            (x * 4 % 256, y * 6 % 256, (x * y) % 256, 0 if x < 8 else 255 - y)
            for y in range(size[1])
            for x in range(size[0])
        ]
    )
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def test_a_figure_is_shown_as_a_lossless_webp_with_the_same_pixels_where_that_is_smaller(
    tmp_path, monkeypatch
):
    from PIL import Image

    app, out = small_site(tmp_path)
    tiny, encode = figure_png((1, 1)), publish.webp_image
    monkeypatch.setattr(publish, "webp_image", lambda png: png + b"more" if png == tiny else encode(png))
    (out / "_images").mkdir()
    (out / "_images/fig.png").write_bytes(figure_png())
    (out / "_images/tiny.png").write_bytes(tiny)
    (out / "guide/a.html").write_text(
        '<html><head><link rel="stylesheet" href="../_static/own.css"></head><body>'
        '<img alt="f" src="../_images/fig.png"><img alt="t" src="../_images/tiny.png"></body></html>'
    )
    publish.publish(app, None)
    webp = (out / "_images/fig.webp").read_bytes()
    assert webp[:4] == b"RIFF" and webp[8:16] == b"WEBPVP8L"  # the lossless bitstream
    copy, original = Image.open(io.BytesIO(webp)), Image.open(io.BytesIO(figure_png()))
    assert copy.convert("RGBA").tobytes() == original.convert("RGBA").tobytes()
    sources = [i["src"] for i in soup((out / "guide/a.html").read_text()).find_all("img")]
    assert (
        sources == ["../_images/fig.webp", "../_images/tiny.png"] and not (out / "_images/tiny.webp").exists()
    )
    assert publish.webp_image(figure_png()) == webp  # the same bytes each build


def test_a_new_word_of_prose_leaves_the_bundle_and_a_new_class_changes_it(tmp_path):
    """The bundle's name (a reader's browser keeps it) changes only with the rules it keeps; a
    site written again beside the kept doctrees gets its subset fonts again."""
    app, out = small_site(tmp_path)
    publish.publish(app, None)
    first = (out / "index.html").read_text()
    page = small_site(tmp_path / "again")[1] / "index.html"
    (out / "new.html").write_text(page.read_text().replace(">text<", ">prose unseen before<"))
    publish.publish(app, None)
    assert (out / "index.html").read_text() == first  # new words, which no selector needs
    (out / "new.html").write_text(page.read_text().replace('class="b', 'class="i-b b'))
    publish.publish(app, None)
    assert ".i-b" in the_bundle(out) and (out / "index.html").read_text() != first
    shutil.rmtree(out)
    app, out = small_site(tmp_path)
    publish.publish(app, None)
    assert list((out / "_static/vendor").glob("icons.subset-*.woff2"))


def test_kept_outputs_are_made_again_in_another_environment(monkeypatch):
    """The memo's key holds the environment's fingerprint (packages by their files: a rebuilt
    Pillow of the same version) and the stage's code."""
    from jaxbook import fingerprint

    key = publish.memo_key()
    monkeypatch.setattr(fingerprint, "environment", lambda: "another environment")
    assert publish.memo_key() != key


def test_code_spans_drawn_as_the_code_itself_in_every_mode_are_left_out():
    css = (
        'html[data-theme="light"] .highlight{color:#111;background:#eee}'
        'html[data-theme="dark"] .highlight{color:#eee}'
        'html[data-theme="light"] .highlight .n{color:#111}html[data-theme="dark"] .highlight .n{color:#eee}'
        'html[data-theme="light"] .highlight .p{color:#111}html[data-theme="dark"] .highlight .p{color:#abc}'
        'html[data-theme="light"] .highlight .w{color:#111;font-weight:bold}'
        'html[data-theme="light"] .highlight .gp{color:#111}.k{color:red}'
    )
    plain = publish.plain_classes(css)  # not .gp: the copy button finds prompts by it
    assert plain == {"n"}
    page = soup(
        '<div class="highlight"><pre><span class="n">x</span> <span class="p">=</span> '
        '<span class="n" id="a">y</span><span class="n">z</span></pre></div><p><span class="n">t</span></p>'
    )
    publish.lighter_code(page, plain)
    assert str(page) == (
        '<div class="highlight"><pre>x <span class="p">=</span> <span class="n" id="a">y</span>z</pre></div>'
        '<p><span class="n">t</span></p>'
    )
