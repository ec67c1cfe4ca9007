"""The build-time accessibility and page-weight helpers (a11y, weight, speed), on small inputs (no build)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from jaxbook import a11y, speed, weight
from jaxbook.mathml import to_mathml

#: Reads none of the book's content (tests/pass_cache.py): an edited page or snippet does not re-check it.
pytestmark = pytest.mark.inputs()


def test_math_becomes_mathml_with_its_latex_as_alt_text():
    markup = to_mathml(r'\frac{\partial f}{\partial x} = "q"', "block", None)
    assert markup.startswith("<math ") and markup.endswith("</math>")
    assert 'display="block"' in markup and "<mfrac>" in markup
    assert r'alttext="\frac{\partial f}{\partial x} = &quot;q&quot;"' in markup


def test_sidebar_toggles_are_named_after_their_section():
    html = (
        '<li class="toctree-l1 has-children"><a class="reference internal" href="p/index.html">'
        'Study <code>plan</code> &amp; more</a><details><summary><span class="toctree-toggle" '
        'role="presentation"><i class="fa-solid fa-chevron-down"></i></span></summary>'
    )
    html = '<li class="toctree-l1"><a class="reference internal" href="a.html">A</a></li>' + html
    named = a11y.name_toggles(html)
    assert '<summary aria-label="Pages in Study plan &amp; more">' in named
    assert a11y.name_toggles(named) == named  # nothing else changes, and only once
    with pytest.raises(a11y.MarkupChanged, match="toctree toggles"):  # a theme upgrade changed them
        a11y.name_toggles(html.replace("</a><details>", "</a><div></div><details>"))


def test_the_theme_templates_that_templates_re_implement_are_the_ones_copied(monkeypatch):
    a11y.check_theme_templates()  # the installed theme's
    source = a11y.theme_template("layout.html", "css")
    monkeypatch.setattr(
        a11y, "theme_template", lambda name, block: source + "<script>new</script>" if block == "css" else ""
    )
    with pytest.raises(a11y.MarkupChanged, match="block 'css' of layout.html"):
        a11y.check_theme_templates()


CSS = (
    ".used{color:red}.unused{color:blue}.used .unused,.used>p{margin:0}"
    ".btn:not(.unused){x:1}@media (min-width:1px){.unused{a:b}.used{a:c}}"
    "@font-face{font-family:X;src:url(x.woff2)}/* Name.Function */ .used .nf{c:d}"
    '.bs-tooltip-auto{e:f}[data-x="a{b}"] .used{g:h}'
)


def test_stylesheet_purge_keeps_every_rule_a_page_can_use():
    purged = weight.purge(CSS, {"used", "nf", "btn", "p"})
    for kept in (
        ".used{color:red}",
        ".used>p{margin:0}",
        ".btn:not(.unused){x:1}",
        "@media (min-width:1px){.used{a:c}}",
        "@font-face{font-family:X;src:url(x.woff2)}",
        ".used .nf{c:d}",
        ".bs-tooltip-auto{e:f}",
        '[data-x="a{b}"] .used{g:h}',
    ):
        assert kept in purged, (kept, purged)
    assert ".unused{" not in purged and ".used .unused" not in purged
    assert weight.purge(purged, {"used", "nf", "btn", "p"}) == purged  # the next build may find it


def theme_file(name: str) -> Path:
    """The installed pydata-sphinx-theme's file ``name``."""
    import pydata_sphinx_theme

    return next(Path(pydata_sphinx_theme.__file__).parent.rglob(name))


def test_purging_the_theme_stylesheet_twice_changes_nothing():
    css = theme_file("pydata-sphinx-theme.css").read_text()
    words = {"btn", "navbar", "show", "active", "bd-sidebar", "fa-solid", "fa-sun", "collapse", "table"}
    purged = weight.purge(css, words)
    assert len(purged) < len(css) / 2
    assert weight.purge(purged, words) == purged


def test_icon_glyphs_are_found_for_grouped_selectors(tmp_path):
    (tmp_path / "page.html").write_text('<i class="fa-solid fa-magnifying-glass"></i>')
    css = (
        '.fa-magnifying-glass,.fa-search{--fa:"\\f002"}.fa-sun{--fa:"\\f185"}'
        ':root{--pst-icon-download:"\\f019"}'
    )
    assert weight.used_glyphs(tmp_path, css) == {0xF002, 0xF019}


def figure_png(size=(64, 40)) -> bytes:
    """A PNG with colours, soft edges and transparent pixels of different colours."""
    import io

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


def test_a_figure_as_webp_has_the_same_pixels_in_a_lossless_webp():
    import io

    from PIL import Image

    png = figure_png()
    webp = weight.webp_image(png)
    assert webp[:4] == b"RIFF" and webp[8:16] == b"WEBPVP8L"  # the lossless bitstream
    original, copy = Image.open(io.BytesIO(png)), Image.open(io.BytesIO(webp))
    assert copy.size == original.size
    assert copy.convert("RGBA").tobytes() == original.convert("RGBA").tobytes()  # transparent ones too
    assert weight.webp_image(png) == webp  # the same bytes each build


def test_pages_show_the_webp_copy_of_the_images_named_only():
    page = (
        '<img alt="a" src="../_images/a1.png" width="5" /><img src="../../_images/b.png">'
        '<img alt="c" src="_images/c.png"><img src="../_static/d.png"><a href="../_images/a1.png">png</a>'
    )
    assert weight.webp_sources(page, {"a1", "b", "d"}) == (
        '<img alt="a" src="../_images/a1.webp" width="5" /><img src="../../_images/b.webp">'
        '<img alt="c" src="_images/c.png"><img src="../_static/d.png"><a href="../_images/a1.png">png</a>'
    )


def test_the_build_writes_webp_copies_and_keeps_a_png_that_is_smaller(tmp_path, monkeypatch):
    from types import SimpleNamespace

    site = tmp_path / "html"
    (site / "_images").mkdir(parents=True)
    (site / "guide").mkdir()
    (site / "_images" / "fig.png").write_bytes(figure_png())
    (site / "_images" / "tiny.png").write_bytes(b"not worth it")
    (site / "guide" / "a.html").write_text('<img src="../_images/fig.png"><img src="../_images/tiny.png">')
    app = SimpleNamespace(
        outdir=str(site), doctreedir=str(tmp_path / "doctrees"), builder=SimpleNamespace(format="html")
    )
    encode = weight.webp_image
    monkeypatch.setattr(
        weight, "webp_image", lambda png: b"x" * 99 if png == b"not worth it" else encode(png)
    )
    weight.smaller_images(app, None)
    assert (site / "_images" / "fig.webp").read_bytes() == encode(figure_png())
    assert not (site / "_images" / "tiny.webp").exists() and (site / "_images" / "fig.png").is_file()
    assert (
        site / "guide" / "a.html"
    ).read_text() == '<img src="../_images/fig.webp"><img src="../_images/tiny.png">'
    (site / "_images" / "fig.webp").unlink()
    weight.smaller_images(app, None)  # an incremental build: pages already rewritten, copy written again
    assert (site / "_images" / "fig.webp").is_file()


def test_an_icon_the_stylesheet_does_not_name_fails_with_its_page(tmp_path):
    css = '.fa-magnifying-glass{--fa:"\\f002"}'
    (tmp_path / "guide").mkdir()
    (tmp_path / "guide" / "a.html").write_text('<i class="fa-solid fa-fw fa-lg fa-magnifying-glass"></i>')
    assert weight.used_glyphs(tmp_path, css) == {0xF002}  # fa-solid, fa-fw, fa-lg style it
    (tmp_path / "guide" / "a.html").write_text('<i class="fa-solid fa-magnifying-glas"></i>')
    with pytest.raises(ValueError, match="guide/a.html: the icon class fa-magnifying-glas names no icon"):
        weight.used_glyphs(tmp_path, css)


def myst_nb_hidden_cell(show: str = "Show code cell outputs", hide: str = "Hide code cell outputs") -> str:
    """The markup of a hidden cell output, written by the installed MyST-NB's own HTML visitor."""
    from types import SimpleNamespace

    from myst_nb.sphinx_ import HideCodeCellNode, depart_HideCellInput, visit_HideCellInput

    node = HideCodeCellNode(prompt_show=show, prompt_hide=hide, classes=["above-output"])
    translator = SimpleNamespace(body=[])
    visit_HideCellInput(translator, node)
    translator.body.append("<div>4.0</div>\n")
    depart_HideCellInput(translator, node)
    return "".join(translator.body)


def test_hidden_output_toggles_are_named_by_their_visible_text_and_hold_phrasing_content_only():
    html = a11y.fix_html(myst_nb_hidden_cell(hide="Hide <outputs> & more"))
    summary = re.search(r"<summary>(.*?)</summary>", html, re.S)
    assert summary, html
    assert "aria-label" not in html
    assert "<p" not in summary[1] and "<div" not in summary[1]  # HTML: a summary holds phrasing content
    assert '<span class="collapsed admonition-title">Show code cell outputs</span>' in summary[1]
    assert '<span class="expanded admonition-title">Hide &lt;outputs&gt; &amp; more</span>' in summary[1]
    assert html.endswith("<div>4.0</div>\n</details>\n")


def test_a_hidden_cell_toggle_in_unknown_markup_fails_the_build():
    changed = myst_nb_hidden_cell().replace("<p class", "<div class").replace("</p>", "</div>")
    with pytest.raises(a11y.MarkupChanged, match="MyST-NB changed its hide-cell toggle"):
        a11y.fix_html(changed)


def test_post_processing_outputs_are_reused_only_for_the_same_inputs(tmp_path):
    """A no-op rebuild re-uses the purged stylesheets and subset fonts; new inputs recompute,
    and an entry the latest build did not use is deleted."""
    from types import SimpleNamespace

    from jaxbook.weight import Memo

    app, calls = SimpleNamespace(doctreedir=str(tmp_path)), []

    def compute(value):
        return lambda: calls.append(value) or value

    memo = Memo(app, "css")
    assert memo.get(compute(b"one"), b"css", b"words") == b"one"
    assert memo.get(compute(b"two"), b"css", b"words") == b"one"  # same inputs: the kept output
    assert memo.get(compute(b"three"), b"css", b"other words") == b"three"
    assert calls == [b"one", b"three"]
    other = Memo(app, "css-names")  # another kind, whose name starts with this one's
    other.get(compute(b"names"), b"css")
    later = Memo(app, "css")
    later.get(compute(b"four"), b"css", b"other words")
    later.prune()
    assert len(list((tmp_path / "jaxbook-weight" / "css").iterdir())) == 1
    assert calls == [b"one", b"three", b"names"]
    assert Memo(app, "css-names").get(compute(b"again"), b"css") == b"names"  # not pruned with css


def test_a_page_s_words_are_every_class_name_it_can_use():
    page = '<div class="used bs-x"><p id="a1">Déjà vu</p><script>el.add("show")</script>'.encode()
    words = weight.words_of(page).decode().split("\n")
    assert {"div", "used", "bs-x", "a1", "Déjà", "show"} <= set(words)
    assert words == sorted(set(words))


def test_a_subset_font_is_the_same_file_in_every_build():
    import time

    font = theme_file("fa-solid-900.woff2").read_bytes()
    first = weight.subset_font_bytes(font, {0xF002})
    time.sleep(1.1)  # the font's date has a resolution of one second
    assert weight.subset_font_bytes(font, {0xF002}) == first
    assert 0 < len(first) < len(font)


def test_kept_outputs_are_made_again_with_another_version_of_a_library():
    """The memo's key holds the versions of fontTools, Brotli and tinycss2: after an upgrade,
    fonts and stylesheets are made again by the new version (images: by Pillow's and libwebp's)."""
    from importlib.metadata import version

    from jaxbook.files import code_digest

    assert code_digest(Path(weight.__file__), weight.LIBRARIES) == weight._CODE
    for name in weight.LIBRARIES:
        other = code_digest(
            Path(weight.__file__), weight.LIBRARIES, lambda d: "0.0" if d == name else version(d)
        )
        assert other != weight._CODE, name


def test_a_stylesheet_is_purged_again_only_when_a_class_it_names_comes_or_goes(tmp_path, monkeypatch):
    from types import SimpleNamespace

    from jaxbook.weight import Memo, purged_stylesheet

    words = {"used", "nf", "btn", "p"}
    first, with_unused = weight.purge(CSS, words), weight.purge(CSS, words | {"unused"})
    assert ".unused{" not in first and ".unused{color:blue}" in with_unused
    app, calls, purge = SimpleNamespace(doctreedir=str(tmp_path)), [], weight.purge
    monkeypatch.setattr(weight, "purge", lambda *args: calls.append(args[1:]) or purge(*args))

    def run(css, words):
        """The purged stylesheet, and how many purges were made so far."""
        return purged_stylesheet(css, set(words), Memo(app, "classes"), Memo(app, "css")), len(calls)

    assert run(CSS, words) == (first, len(calls)) and calls
    made = len(calls)
    assert run(CSS, words | {"8cd3d715", "prose"}) == (first, made)  # words no selector names
    assert run(first, words) == (first, made)  # the purged file, found in place by the next build
    assert run(CSS, words | {"unused"})[0] == with_unused  # a page now uses .unused: purged again
    assert len(calls) > made


def test_every_script_of_the_head_is_deferred_but_the_one_inline_scripts_use():
    page = (
        '<html><head><script src="_static/documentation_options.js?v=1"></script>'
        '<script src="_static/doctools.js?v=2"></script><script defer src="a.js"></script>'
        '<script async src="b.js"></script><script type="module" src="c.js"></script>'
        "<script>DOCUMENTATION_OPTIONS.pagename = 'x';</script></head>"
        '<body><script src="late.js"></script></body></html>'
    )
    assert speed.deferred_scripts(page) == page.replace(
        '<script src="_static/doctools.js', '<script defer src="_static/doctools.js'
    )
    with pytest.raises(speed.HeadNotFound):
        speed.deferred_scripts("<body></body>")


def test_a_head_without_the_stylesheet_links_it_reads_fails_instead_of_staying_unbundled():
    with pytest.raises(speed.HeadNotFound, match="links no stylesheet"):
        speed.head_links('<head><link rel="stylesheet" href="https://cdn.example/x.css"></head>')
    assert [
        m["path"] for m in speed.head_links('<head><link rel="stylesheet" href="_static/a.css" /></head>')
    ] == ["a.css"]


THEME_CSS = """\
html[data-theme="light"] .highlight pre { line-height: 125%; }
html[data-theme="light"] .highlight { background: #fefefe; color: #080808 }
html[data-theme="light"] .highlight .n { color: #080808 } /* Name */
html[data-theme="light"] .highlight .p { color: #080808 } /* Punctuation */
html[data-theme="light"] .highlight .k { color: #6730c5 } /* Keyword */
html[data-theme="light"] .highlight .go { color: #080808 } /* Generic.Output */
html[data-theme="dark"] .highlight { background: #2b2b2b; color: #F8F8F2 }
html[data-theme="dark"] .highlight .n { color: #F8F8F2 } /* Name */
html[data-theme="dark"] .highlight .p { color: #ff0000 } /* Punctuation: coloured in dark mode */
"""


def test_only_spans_drawn_as_the_code_itself_in_both_modes_are_removed():
    plain = speed.plain_token_classes(THEME_CSS)
    # .p is red in dark mode, .k coloured, .go kept for the copy button; .w, .nn have no rule
    assert {"n", "w", "nn"} <= plain and not {"p", "k", "go", "gp", ""} & plain
    code = '<div class="highlight"><pre><span class="n">x</span><span class="w"> </span><span class="k">in</span><span class="p">(</span></pre></div>'
    assert speed.lighter_code(code + '<p><span class="n">kept</span></p>', plain) == (
        '<div class="highlight"><pre>x <span class="k">in</span><span class="p">(</span></pre></div>'
        '<p><span class="n">kept</span></p>'
    )


@pytest.mark.parametrize(
    ("markup", "message"),
    [
        ('<div class="highlight"><pre class="code"><span class="n">x</span></pre></div>', "1 code blocks"),
        ('<div class="highlight"><pre><span class="n" data-x="1">x</span></pre></div>', r"\['n'\]"),
        ('<div class="highlight"><pre><span class="n"><b>x</b></span></pre></div>', r"\['n'\]"),
    ],
    ids=["another pre", "a span with attributes", "a span with markup"],
)
def test_code_in_another_markup_fails_instead_of_staying_heavy(markup, message):
    with pytest.raises(speed.CodeMarkupChanged, match=message):
        speed.lighter_code(markup, frozenset({"n"}))


def test_an_article_in_another_markup_fails_instead_of_keeping_its_word_spans():
    with pytest.raises(speed.CodeMarkupChanged, match="bd-article"):
        speed.plain_literals(
            '<article class="article"><code class="literal"><span class="pre">x</span></code></article>'
        )
    with pytest.raises(speed.CodeMarkupChanged, match="bd-article"):
        speed.plain_literals(
            '<main class="bd-article"><code class="literal"><span class="pre">x</span></code></main>'
        )
    assert speed.plain_literals("<p>a page without an article</p>") == "<p>a page without an article</p>"


@pytest.mark.parametrize(
    "literal",
    [
        '<code class="docutils literal"><em>e</em><span class="pre">z</span></code>',  # other markup inside
        '<code class="docutils literal"><span class="pre" translate="no">z</span></code>',  # another attribute
        '<tt class="literal"><span class="pre">z</span></tt>',  # another element
    ],
    ids=["other markup", "another attribute", "another element"],
)
def test_a_literal_in_another_markup_fails_instead_of_keeping_its_word_spans(literal):
    with pytest.raises(speed.CodeMarkupChanged, match="span.pre left in the article"):
        speed.plain_literals(f'<article class="bd-article"><p>{literal}</p></article>')


def test_inline_literals_of_the_article_lose_their_word_spans_and_nothing_else():
    words = '<code class="docutils literal notranslate"><span class="pre">f(x,</span> <span class="pre">y)</span></code>'
    linked = '<a href="#x"><code class="xref py docutils literal notranslate"><span class="pre">jit</span></code></a>'
    kept = '<code class="docutils literal"><em>e</em></code><pre>x = 1</pre>'
    page = f'<nav>{words}</nav><article class="bd-article"><p>{words} {linked}</p>{kept}</article><nav>{words}</nav>'
    assert speed.plain_literals(page) == (
        f'<nav>{words}</nav><article class="bd-article"><p><code class="docutils literal notranslate">f(x, y)</code> '
        f'<a href="#x"><code class="xref py docutils literal notranslate">jit</code></a></p>{kept}</article><nav>{words}</nav>'
    )


def test_the_themes_highlighting_styles_are_read_from_its_own_stylesheet():
    from pydata_sphinx_theme.pygments import get_pygments_stylesheet

    assert speed.plain_token_classes(get_pygments_stylesheet("tango", "monokai")) == frozenset()
    with pytest.raises(ValueError, match="pygments.css"):
        speed.plain_token_classes(".highlight .n { color: #000 }")


def small_site(tmp_path: Path) -> tuple[object, Path]:
    """A built site of two pages at two depths, linking three stylesheets (one imports a fourth,
    two load fonts and images by relative paths), and a Sphinx app that points at it."""
    out, doctrees = tmp_path / "html", tmp_path / "doctrees"
    files = {
        "_static/styles/theme.css": '@import "../basic.css";\n.t{color:red}',
        "_static/basic.css": "@charset \"utf-8\";\n/* base */ .b{background:url('img/x.png')}",
        "_static/styles/theme-2.css": (
            "@font-face{font-family:i;src:url(../vendor/f.woff2) format('woff2')}"
            ".s{background:url(data:image/gif;base64,R0lG)}@media (min-width:9px){.m{background:url(../m.svg)}}"
        ),
        "_static/own.css": ".o{color:blue}",
    }
    for name, text in files.items():
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_text(text, encoding="utf-8")
    head = (
        '<link href="{p}_static/styles/theme.css?digest=1" rel="stylesheet" />\n'
        '<link href="{p}_static/styles/theme-2.css?digest=1" rel="stylesheet" />\n'
        '    <link rel="stylesheet" type="text/css" href="{p}_static/own.css?v=2" />\n'
    )
    for page, prefix in [("index.html", ""), ("guide/grad.html", "../")]:
        (out / page).parent.mkdir(parents=True, exist_ok=True)
        (out / page).write_text(
            f"<html><head><title>t</title>\n{head.format(p=prefix)}<script src=x.js></script></head>"
            '<body><link rel="stylesheet" href="_static/own.css"></body></html>',
            encoding="utf-8",
        )
    app = type("App", (), {"outdir": str(out), "doctreedir": str(doctrees)})()
    app.builder = type("Builder", (), {"format": "html"})()
    return app, out


def test_a_page_links_one_stylesheet_holding_every_rule_in_the_order_it_linked_them(tmp_path):
    app, out = small_site(tmp_path)
    speed.bundle_stylesheets(app, None)
    bundles = sorted((out / "_static").glob("bundle-*.css"))
    assert len(bundles) == 1
    css = bundles[0].read_text(encoding="utf-8")
    # The import where it stood, then the rest in the pages' order; urls hold from _static.
    order = [css.index(rule) for rule in (".b{", ".t{", "@font-face", ".s{", ".m{", ".o{")]
    assert order == sorted(order), css
    assert "url(styles/img/x.png)" not in css and "url(img/x.png)" in css  # basic.css sits in _static
    assert "url(vendor/f.woff2)" in css and "url(m.svg)" in css and "url(data:image/gif;base64,R0lG)" in css
    assert "@import" not in css and "@charset" not in css and "/* base" not in css
    digest = speed.hashlib.sha256(css.encode()).hexdigest()[:16]
    for page, prefix in [("index.html", ""), ("guide/grad.html", "../")]:
        html = (out / page).read_text(encoding="utf-8")
        head, body = html.split("</head>")
        assert re.findall(r"<link[^>]*stylesheet[^>]*>", head) == [
            f'<link rel="stylesheet" href="{prefix}_static/{bundles[0].name}?v={digest}" />'
        ]
        assert "<script src=x.js></script>" in head and "own.css" in body  # nothing else moves


def test_a_page_of_an_earlier_build_links_the_bundle_of_the_sources_as_they_are_now(tmp_path):
    app, out = small_site(tmp_path)
    speed.bundle_stylesheets(app, None)
    first = (out / "index.html").read_text(encoding="utf-8")
    speed.bundle_stylesheets(app, None)  # nothing changed: nothing is rewritten
    assert (out / "index.html").read_text(encoding="utf-8") == first
    (out / "_static" / "own.css").write_text(".o{color:green}", encoding="utf-8")  # a later build
    speed.bundle_stylesheets(app, None)
    (bundle,) = (out / "_static").glob("bundle-*.css")
    assert ".o{color:green}" in bundle.read_text(encoding="utf-8")
    again = (out / "index.html").read_text(encoding="utf-8")
    assert again != first and bundle.name in again  # same bundle, new digest: no stale copy is kept
    assert speed.hashlib.sha256(bundle.read_bytes()).hexdigest()[:16] in again


def test_a_bundle_is_made_again_only_when_a_stylesheet_changes(tmp_path, monkeypatch):
    """Kept between builds by the content of every stylesheet, imported ones included."""
    app, out = small_site(tmp_path)
    speed.bundle_stylesheets(app, None)
    (bundle,) = (out / "_static").glob("bundle-*.css")
    first = bundle.read_text(encoding="utf-8")

    def parse(*args):
        raise AssertionError("the bundle was made again")

    with monkeypatch.context() as patch:
        patch.setattr(speed, "inlined", parse)
        speed.bundle_stylesheets(app, None)  # nothing changed: the kept bundle
    assert bundle.read_text(encoding="utf-8") == first
    (out / "_static" / "basic.css").write_text(".b{color:teal}", encoding="utf-8")  # imported by theme.css
    speed.bundle_stylesheets(app, None)
    assert ".b{color:teal}" in bundle.read_text(encoding="utf-8")
    kept = sorted(p.name for p in (tmp_path / "doctrees" / "jaxbook-bundles").iterdir())
    assert kept == [bundle.name, kept[1]] and kept[1].startswith(f"{bundle.name}.")  # one copy kept


def test_a_stylesheet_the_bundle_cannot_hold_fails_the_build(tmp_path):
    app, out = small_site(tmp_path)
    (out / "_static" / "basic.css").write_text('@import "styles/theme.css";', encoding="utf-8")
    with pytest.raises(ValueError, match="circle"):
        speed.bundle_stylesheets(app, None)
    (out / "_static" / "basic.css").write_text('@import "x.css" print;', encoding="utf-8")
    with pytest.raises(ValueError, match="cannot inline"):
        speed.bundle_stylesheets(app, None)
    app, out = small_site(tmp_path / "other")
    speed.bundle_stylesheets(app, None)
    (tmp_path / "other" / "doctrees" / "jaxbook-bundles").rename(tmp_path / "gone")
    with pytest.raises(ValueError, match="no build recorded"):
        speed.bundle_stylesheets(app, None)
