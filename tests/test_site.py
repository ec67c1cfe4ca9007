"""The real site: a strict build (every page executed, any warning fails), then what it publishes."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from html import unescape
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from jaxbook import ROOT, layout
from jaxbook.pages import NOT_FOUND_PAGE, book_pages, read
from tests import pass_cache
from tests.browser.support import published_pages

pytestmark = pytest.mark.build

HTML = ROOT / layout.HTML
#: Where files lie on the machine that built the site: none may be named in what it publishes.
MACHINE = {str(ROOT), str(Path.home()), "/root/", "/tmp/", "/home/", "site-packages", "/usr/lib/python"}
MACHINE_PATHS = re.compile("|".join(map(re.escape, sorted(MACHINE))))
TEXT_SUFFIXES = {".html", ".js", ".ipynb", ".txt", ".md", ".css", ".json", ".py"}


def pages():
    """The built pages that come from the book's sources."""
    return [HTML / p.relative_to(ROOT).with_suffix(".html") for p in book_pages(ROOT)]


#: Every page the site publishes, under the site: those a reader opens (the book's pages, Sphinx's
#: search page) and the 404 page.
PUBLISHED = [*published_pages(), NOT_FOUND_PAGE]


def test_strict_build_succeeds(site):
    assert site.returncode == 0, site.stdout[-5000:] + site.stderr[-20000:]
    assert "build succeeded" in site.stdout


def test_no_empty_index_page_is_published_or_linked(built_site):
    """The book has no index entries, so Sphinx's general index would be an empty page."""
    assert not (HTML / "genindex.html").exists()
    linked = [str(p.relative_to(HTML)) for p in pages() if "genindex.html" in p.read_text(encoding="utf-8")]
    assert not linked, linked


def test_no_build_machine_path_is_published(built_site):
    leaks = []
    for path in HTML.rglob("*"):
        if path.is_file() and path.suffix in TEXT_SUFFIXES:
            for match in MACHINE_PATHS.finditer(path.read_text(encoding="utf-8", errors="replace")):
                leaks.append(f"{path.relative_to(HTML)}: {match.group(0)!r}")
    assert not leaks, "\n".join(leaks[:50])


#: The attribute of each tag whose URL a browser fetches by itself when it renders a page.
FETCHED = dict.fromkeys(("script", "img", "iframe", "source", "audio", "video", "embed"), "src")
FETCHED.update(object="data", link="href")
#: The relations of a ``<link>`` whose URL the browser fetches.
FETCHED_LINKS = set(
    "stylesheet preload icon prefetch modulepreload manifest preconnect dns-prefetch shortcut apple-touch-icon".split()
)
EXTERNAL = re.compile(r"^\s*(https?:)?//", re.I)


def fetched_urls(page: Path) -> list[str]:
    """Every URL that a browser fetches by itself when it renders ``page``."""
    urls = []
    for tag in BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser").find_all(FETCHED):
        if tag.name != "link" or set(tag.get("rel", [])) & FETCHED_LINKS:
            srcset = [part.split()[0] for part in tag.get("srcset", "").split(",") if part.strip()]
            urls += [tag.get(FETCHED[tag.name]), *srcset]
    return [url for url in urls if url]


def test_no_page_requests_third_party_assets(built_site):
    external = [
        f"{p.relative_to(HTML)}: {u}"
        for p in HTML.rglob("*.html")
        for u in fetched_urls(p)
        if EXTERNAL.match(u)
    ]
    for path in HTML.rglob("*.css"):
        for url in re.findall(r"(?:url\(|@import\s+)['\"]?([^'\")\s]+)", path.read_text(errors="replace")):
            if EXTERNAL.match(url):
                external.append(f"{path.relative_to(HTML)}: {url}")
    assert not external, "\n".join(external[:50])


def test_every_page_with_outputs_opens_with_its_note_and_no_other_does(built_site):
    """Right under the title: the notebook to download, then the environment of the outputs."""
    import jax

    stamp = f"Outputs computed with JAX {jax.__version__} on 8 emulated CPU devices"
    wrong = []
    for source, page in zip(book_pages(ROOT), pages()):
        html = page.read_text(encoding="utf-8")
        note = re.search(
            r'</h1>\s*<div class="jaxbook-page-note[^"]*">\s*<p class="jaxbook-download">.*?</p>\s*'
            r'<p class="jaxbook-stamp">([^<]*)</p>\s*</div>',
            html,
            re.S,
        )
        has_cells = bool(read(source).cells)
        if has_cells and not (note and stamp in note[1]) or not has_cells and "jaxbook-page-note" in html:
            wrong.append(str(page.relative_to(HTML)))
    assert not wrong


#: A line of the snippet contract (jaxbook/snippet.py) where a reader would see it.
CONTRACT_LINE = re.compile(r"^#\s*(?:raises|match|warns|warns-match|tolerance|platform)\s*:.*$", re.M)


def test_no_cell_shows_the_snippet_contract_or_a_test_label(built_site):
    shown = []
    for page in pages():
        html = page.read_text(encoding="utf-8")
        for cell in re.findall(r'<div class="cell_input.*?</pre>', html, re.S):
            text = unescape(re.sub(r"<[^>]+>", "", cell))
            shown += [f"{page.relative_to(HTML)}: {line}" for line in CONTRACT_LINE.findall(text)]
        if "tested by" in html:
            shown.append(f"{page.relative_to(HTML)}: tested by")
    assert not shown, "\n".join(shown[:20])


def test_every_cell_names_an_existing_snippet(built_site):
    captions = 0
    for page in pages():
        for name in re.findall(r'class="jaxbook-snippet-file">([^<]+)<', page.read_text(encoding="utf-8")):
            captions += 1
            assert (ROOT / name).is_file(), f"{page.name}: caption names a missing file {name}"
    assert captions >= 10


#: The Nu HTML Checker (W3C's vnu), pinned in package-lock.json (`npm ci --ignore-scripts`).
VNU = ROOT / "node_modules" / "vnu-jar" / "build" / "dist" / "vnu.jar"


#: Java's options for the checker: its quick compiler only (one run is too short for the optimizing
#: one to pay off: 3.8 s instead of 5.2 for the whole site), and the deeper stack its schema needs.
JAVA_OPTIONS = ("-Xss4m", "-XX:TieredStopAtLevel=1")


def vnu_errors(files: list[Path], site: Path = HTML) -> list[str]:
    """The Nu HTML Checker's errors about ``files``, one line each: file (under ``site``), line
    and message (one Java process for every file)."""
    java = shutil.which("java")
    assert java, "the HTML check needs Java 11 or newer (Debian: apt-get install default-jre-headless)"
    assert VNU.is_file(), (
        f"{VNU.relative_to(ROOT)} is missing: run `npm ci --ignore-scripts` (make test does)"
    )
    result = subprocess.run(
        [java, *JAVA_OPTIONS, "-jar", str(VNU), "--format", "json", "--errors-only", *map(str, files)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    messages = json.loads(result.stderr or result.stdout)["messages"]
    return [
        f"{Path(m.get('url', '?').removeprefix('file:')).relative_to(site.resolve())}:{m.get('lastLine', '?')}: "
        f"{m['message']}"
        for m in messages
        if m["type"] in ("error", "non-document-error")
    ]


@pytest.mark.inputs()
def test_the_html_checker_reports_each_error_at_its_page_and_line(tmp_path):
    """The checker as the site's test runs it finds an error, and only in the page that has it."""
    head = '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>t</title></head>\n'
    (tmp_path / "good.html").write_text(head + "<body><p>fine</p></body></html>\n", encoding="utf-8")
    (tmp_path / "guide").mkdir()
    bad = "<body>\n<details><summary><p>toggle</p></summary></details>\n</body></html>\n"
    (tmp_path / "guide" / "bad.html").write_text(head + bad, encoding="utf-8")
    errors = vnu_errors([tmp_path / "good.html", tmp_path / "guide" / "bad.html"], site=tmp_path)
    assert len(errors) == 1 and errors[0].startswith("guide/bad.html:4: "), errors
    assert "“p” not allowed as child of element “summary”" in errors[0], errors


def test_every_published_page_is_checked_as_html(built_site):
    """The site publishes every page of the book, and none that test_page_is_valid_html does not check."""
    built = {
        p.relative_to(HTML).as_posix()
        for p in HTML.rglob("*.html")
        if p.relative_to(HTML).parts[0] != "_static"
    }
    assert built == set(PUBLISHED), f"published but not checked: {sorted(built - set(PUBLISHED))}"


def built_html(item) -> list[Path]:
    """What the HTML checker reads of a page (parameter ``path``): its HTML file only."""
    return [HTML / item.callspec.params["path"]]


@pytest.fixture(scope="module")
def html_errors(request, built_site) -> dict[str, list[str]]:
    """The Nu HTML Checker's errors, by page, for every page whose check runs in this session
    (the others are unchanged since they passed): one Java process for all of them."""
    checking = [
        item.callspec.params["path"]
        for item in request.session.items
        if getattr(item, "originalname", None) == "test_page_is_valid_html" and pass_cache.will_run(item)
    ]
    errors = {path: [] for path in checking}
    for line in vnu_errors([HTML / path for path in checking]):
        errors[line.split(":", 1)[0]].append(line)
    return errors


@pytest.mark.xdist_group("html-checker")  # one worker, one Java process
@pytest.mark.built_inputs.with_args(built_html)
@pytest.mark.parametrize("path", PUBLISHED)
def test_page_is_valid_html(path, html_errors):
    """Every page the site publishes (the book's pages, search and 404) passes the Nu HTML Checker."""
    errors = html_errors[path]
    assert not errors, f"{len(errors)} HTML errors:\n" + "\n".join(errors[:50])


def test_every_page_waits_for_one_stylesheet_only(built_site):
    """jaxbook/publish.py: the head links one stylesheet, the bundle, which imports nothing more."""
    several = []
    for path in HTML.rglob("*.html"):
        if path.relative_to(HTML).parts[0] == "_static":
            continue
        head = path.read_text(encoding="utf-8").split("</head>", 1)[0]
        links = re.findall(r'<link\b[^>]*\brel="stylesheet"[^>]*>', head)
        if len(links) != 1 or "_static/bundle-" not in links[0]:
            several.append(f"{path.relative_to(HTML)}: {links}")
    assert not several, "\n".join(several[:10])
    for bundle in (HTML / "_static").glob("bundle-*.css"):
        assert "@import" not in bundle.read_text(encoding="utf-8"), bundle
