"""What the published site offers besides the pages: notebook downloads, metadata, sitemap, 404."""

from __future__ import annotations

import json
import re

import pytest
from bs4 import BeautifulSoup

from jaxbook import ROOT
from tests.helpers import Book

pytestmark = pytest.mark.build
# One xdist worker builds the hosted book for all the tests that use it (other builds run beside
# it: kernels bind ports the OS assigns, see tests/test_kernel_start.py).
hosted_book = pytest.mark.xdist_group("hosted")
# The hosted throwaway book reads none of the book's content (tests/pass_cache.py).
hosted_inputs = pytest.mark.inputs()


@pytest.fixture(scope="module")
def hosted(tmp_path_factory):
    """A throwaway book built as the hosting service builds it (it provides the base URL)."""
    mp = pytest.MonkeyPatch()
    mp.setenv("READTHEDOCS_CANONICAL_URL", "https://books.example.org/jax/en/latest/")
    book = Book(tmp_path_factory.mktemp("hosted"), publishing=True)
    # Two prints far enough apart in time to reach the notebook as two stream outputs.
    book.snippet(
        "demo/hello.py",
        "import time\n\nimport jax.numpy as jnp\n\nprint('sum:', jnp.arange(4).sum())\n"
        "time.sleep(0.6)\nprint('second line')\n",
    )
    book.page(
        "demo",
        "demo/hello.py",
        body="A page whose first paragraph is long enough to become the description of the page.\n\n"
        "Next, [the landing page](../index.md#test-book).",
    )
    (book.root / "404.md").write_text(
        "---\norphan: true\n---\n# Page not found\n\nTry the [start](index.md).\n"
    )
    build = book.build()
    mp.undo()
    assert build.returncode == 0, build.output
    return build


@hosted_book
@hosted_inputs
def test_each_executed_page_downloads_as_notebook_and_markdown(hosted):
    page = hosted.page("demo")
    assert 'href="../_sources/guide/demo.ipynb"' in page and 'href="../_sources/guide/demo.md"' in page
    notebook = json.loads((hosted.html / "_sources" / "guide" / "demo.ipynb").read_text())
    outputs = [o for cell in notebook["cells"] if cell["cell_type"] == "code" for o in cell["outputs"]]
    text = "".join("".join(o.get("text", "")) for o in outputs)
    assert "sum: 6" in text, "the notebook carries real outputs"
    assert text.count("second line") == 1, f"each printed line appears once: {text!r}"
    markdown = "".join("".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "markdown")
    assert "[the landing page](https://books.example.org/jax/en/latest/index.html#test-book)" in markdown


def head(page: str) -> list[dict[str, str]]:
    """The attributes of each ``<link>`` and ``<meta>`` in a page's head, parsed (the publishing
    stage writes the HTML again, so its spelling is not fixed)."""
    soup = BeautifulSoup(page, "html.parser")
    return [dict(tag.attrs, tag=tag.name) for tag in soup.head.find_all(["link", "meta"])]


def description(page: str) -> str | None:
    return next((t["content"] for t in head(page) if t.get("name") == "description"), None)


@hosted_book
@hosted_inputs
def test_canonical_links_metadata_and_sitemap_use_the_hosting_base_url(hosted):
    page = hosted.page("demo")
    url = "https://books.example.org/jax/en/latest/guide/demo.html"
    tags = head(page)
    assert {"tag": "link", "rel": ["canonical"], "href": url} in tags
    assert {"tag": "meta", "property": "og:url", "content": url} in tags
    described = description(page)
    assert described and described.startswith("A page whose first paragraph"), described
    # Open Graph (sphinxext-opengraph), with the page's own description, once each.
    graph = [(t["property"], t["content"]) for t in tags if t.get("property", "").startswith("og:")]
    for tag in [("og:description", described), ("og:title", "Page demo"), ("og:type", "article")]:
        assert graph.count(tag) == 1, tag
    assert len(graph) == 5 and "og:image" not in dict(graph)  # no generated preview image
    sitemap = (hosted.html / "sitemap.xml").read_text()
    assert f"<loc>{url}</loc>" in sitemap and "404" not in sitemap


@hosted_book
@hosted_inputs
def test_every_page_has_a_description_for_search_engines(hosted):
    """Sphinx's own pages too (search has no source: Lighthouse's SEO audit "meta-description")."""
    pages = [p for p in hosted.html.rglob("*.html") if p.relative_to(hosted.html).parts[0] != "_static"]
    assert {"search.html", "404.html", "index.html"} <= {p.name for p in pages}
    undescribed = [
        str(p.relative_to(hosted.html)) for p in pages if len(description(p.read_text()) or "") < 20
    ]
    assert not undescribed


@hosted_book
@hosted_inputs
def test_404_page_loads_its_assets_from_the_site_root(hosted):
    page = (hosted.html / "404.html").read_text()
    assert "Page not found" in page
    assert 'href="/jax/en/latest/_static/' in page  # works at any depth of a missing URL
    # The links written in 404.md too: served for /jax/en/latest/guide/zz.html, "index.html"
    # would go to /jax/en/latest/guide/index.html.
    assert 'href="/jax/en/latest/index.html"' in page
    assert not re.findall(r'href="(?![/#]|https?:)[^"]*"', page)


@hosted_book
@hosted_inputs
def test_the_build_prints_no_library_chatter(hosted):
    """Sphinx's messages only: no INFO or DEBUG record of another library (accessible-pygments
    turns them on; this build subsets the icon fonts with fontTools, which logs its progress)."""
    chatter = [line for line in hosted.output.splitlines() if re.search(r"\b(INFO|DEBUG)\b", line)]
    assert not chatter, "\n".join(chatter[:10])


def test_local_build_has_no_sitemap(built_site):
    assert not (built_site / "sitemap.xml").exists()
    assert (built_site / "404.html").is_file()


@pytest.mark.inputs()
def test_a_build_without_an_address_removes_the_sitemap_of_one_with_it(tmp_path):
    """Its URLs name the address of the earlier build: nothing stale is published."""
    from types import SimpleNamespace

    from jaxbook import seo

    def build(baseurl):
        app = SimpleNamespace(
            outdir=str(tmp_path),
            config=SimpleNamespace(html_baseurl=baseurl),
            builder=SimpleNamespace(format="html", get_target_uri=lambda doc: f"{doc}.html"),
            env=SimpleNamespace(found_docs={"index", "guide/grad", "404"}),
        )
        seo.on_build_finished(app, None)

    build("https://example.org/book/")
    sitemap = (tmp_path / "sitemap.xml").read_text()
    assert "<loc>https://example.org/book/guide/grad.html</loc>" in sitemap and "404" not in sitemap
    build("")
    assert not (tmp_path / "sitemap.xml").exists()
    assert [p.name for p in tmp_path.iterdir()] == []  # nor a temporary file


SITE = "https://example.org/jax-book/"
RTD = "https://rtd.example/en/"


@pytest.mark.parametrize(
    ("variables", "base", "prefix"),
    [
        ({}, "", "/"),
        ({"JAXBOOK_BASE_URL": SITE}, SITE, "/jax-book/"),
        ({"JAXBOOK_BASE_URL": "https://example.org/other/", "READTHEDOCS_CANONICAL_URL": RTD}, RTD, "/en/"),
    ],
    ids=["no address", "JAXBOOK_BASE_URL", "Read the Docs first"],
)
def test_the_site_address_comes_from_the_host_or_jaxbook_base_url(monkeypatch, variables, base, prefix):
    for name in ("READTHEDOCS_CANONICAL_URL", "JAXBOOK_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    conf = {"__file__": str(ROOT / "conf.py")}
    exec((ROOT / "conf.py").read_text(encoding="utf-8"), conf)
    assert (conf["html_baseurl"], conf["ogp_site_url"], conf["notfound_urls_prefix"]) == (base, base, prefix)
