"""Every internal link and anchor of the built site resolves, checked from the files alone
(no browser, no network)."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import NamedTuple
from urllib.parse import unquote, urlsplit

import pytest
from bs4 import BeautifulSoup

from jaxbook.pages import built_html

pytestmark = pytest.mark.build

URL_ATTRIBUTES = {"href", "src", "data", "poster", "action"}
SKIPPED_SCHEMES = {"http", "https", "mailto", "javascript", "data", "tel", "blob"}
CSS_URL = re.compile(r"""(?:url\(\s*|@import\s+)(['"]?)([^'")\s]+)\1""")


class Links(NamedTuple):
    urls: list[tuple[str, str]]  # (its tag and attribute, the URL)
    anchors: set[str]


@cache
def parse(path: Path) -> Links:
    """The URLs a page refers to and the anchors it defines."""
    urls, anchors = [], set()
    for tag in BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser").find_all(True):
        names = ("id", "name") if tag.name in ("a", "map", "iframe", "form") else ("id",)
        anchors.update(tag[name] for name in names if tag.get(name))
        if tag.name == "meta" or (tag.name == "link" and "preconnect" in tag.get("rel", [])):
            continue
        urls += [
            (f"<{tag.name} {name}>", value) for name, value in tag.attrs.items() if name in URL_ATTRIBUTES
        ]
        srcset = [part.split()[0] for part in tag.get("srcset", "").split(",") if part.strip()]
        urls += [(f"<{tag.name} srcset>", url) for url in srcset]
    return Links(urls, anchors)


def check_link(root: Path, source: Path, what: str, url: str, broken: list[str]):
    """Record in `broken` why `url`, found in `source`, does not resolve."""
    url = url.strip()
    parts = urlsplit(url)
    if parts.scheme.lower() in SKIPPED_SCHEMES or url.startswith("//"):
        return
    where = f"{source.relative_to(root)}: {what} {url!r}"
    if parts.scheme:
        broken.append(f"{where}: unexpected URL scheme")
        return
    if parts.path:
        base = root if parts.path.startswith("/") else source.parent
        target = (base / unquote(parts.path).lstrip("/")).resolve()
        if parts.path.endswith("/") or target.is_dir():
            target = target / "index.html"
    else:
        target = source  # "#anchor" or "?query" on the same page
    if not target.is_relative_to(root.resolve()):
        broken.append(f"{where}: points outside the site")
        return
    if not target.is_file():
        broken.append(f"{where}: no file {target.relative_to(root.resolve())}")
        return
    fragment = unquote(parts.fragment)
    if fragment and target.suffix == ".html" and fragment not in parse(target).anchors:
        hint = (
            " (MyST left an unresolved link to a source file as '#target': that page does not exist)"
            if fragment.endswith((".md", ".ipynb"))
            else ""
        )
        broken.append(
            f"{where}: no element with id or name {fragment!r} in {target.relative_to(root.resolve())}{hint}"
        )


def test_every_internal_link_and_anchor_resolves(site_root):
    root = site_root.resolve()
    pages = built_html(root)
    assert len(pages) >= 20, f"only {len(pages)} pages under {root}"
    broken: list[str] = []
    stylesheets: set[Path] = set()
    for source in pages:
        for what, url in parse(source).urls:
            check_link(root, source, what, url, broken)
            parts = urlsplit(url)
            if (
                what == "<link href>"
                and parts.path.endswith(".css")
                and not parts.scheme
                and not url.startswith("//")
            ):
                stylesheets.add((source.parent / unquote(parts.path)).resolve())
    # What the linked stylesheets load in turn (fonts, images, imported CSS).
    for css in sorted(s for s in stylesheets if s.is_file()):
        for match in CSS_URL.finditer(css.read_text(encoding="utf-8", errors="replace")):
            url = match.group(2)
            if not url.startswith("#"):
                check_link(root, css, "css url()", url, broken)
    assert not broken, f"{len(broken)} broken internal links:\n" + "\n".join(broken)


@pytest.mark.parametrize("missing", ["zz.html", "guide/zz.html", "practice/a/b/zz.html"])
def test_404_page_links_resolve_wherever_it_is_served(site_root, missing):
    """A host serves 404.html at the missing address itself: every link and asset of the page
    must resolve from there (not only from the site's root, where the file lies)."""
    root = site_root.resolve()
    page = root / "404.html"
    served_as = root / missing
    broken: list[str] = []
    for what, url in parse(page).urls:
        if url.startswith("#"):
            if url[1:] and unquote(url[1:]) not in parse(page).anchors:
                broken.append(f"404.html: {what} {url!r}: no such anchor")
            continue
        check_link(root, served_as, what, url, broken)
    assert not broken, f"{len(broken)} broken links on 404.html served as /{missing}:\n" + "\n".join(broken)
