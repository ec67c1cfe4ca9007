"""Accessibility of every published page: axe-core's WCAG 2.0/2.1 A and AA rules in light and
dark mode, meaningful alt text on every image, and a keyboard-only walk through a step page.

axe-core is pinned in package.json / package-lock.json (npm registry, integrity hash) and
installed into node_modules/ by `make test` (`npm ci`); it is read from there and injected into
each page, never fetched at test time.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from jaxbook import ROOT
from tests.browser.conftest import offline
from tests.browser.support import published_pages

pytestmark = [pytest.mark.build, pytest.mark.browser, pytest.mark.xdist_group("site")]

AXE_JS = ROOT / "node_modules" / "axe-core" / "axe.min.js"
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
MODES = ["light", "dark"]


@pytest.fixture(scope="session")
def axe_source() -> str:
    """axe-core's script, at the version package-lock.json pins."""
    lock = json.loads((ROOT / "package-lock.json").read_text(encoding="utf-8"))
    pinned = lock["packages"]["node_modules/axe-core"]["version"]
    if not AXE_JS.is_file():
        pytest.fail(f"{AXE_JS.relative_to(ROOT)} is missing: run `npm ci --ignore-scripts` "
                    "(make test does) to install axe-core from package-lock.json")
    installed = json.loads((AXE_JS.parent / "package.json").read_text(encoding="utf-8"))["version"]
    assert installed == pinned, (f"node_modules has axe-core {installed}, package-lock.json pins "
                                 f"{pinned}: run `npm ci --ignore-scripts`")
    return AXE_JS.read_text(encoding="utf-8")


def mode_context(browser, site_url, mode: str, **options):
    """A context whose pages open in colour mode `mode` (the theme reads localStorage first)."""
    context = offline(browser.new_context(base_url=site_url, **options))
    context.set_default_timeout(30_000)
    context.add_init_script(f"localStorage.setItem('mode', '{mode}');"
                            f"localStorage.setItem('theme', '{mode}');")
    return context


@pytest.fixture(scope="module", params=MODES)
def axe_page(request, browser, site_url, axe_source):
    """One page per colour mode, reused for every page of the site, with axe-core injected into
    every document it loads."""
    mode = request.param
    context = mode_context(browser, site_url, mode, viewport={"width": 1280, "height": 900})
    context.add_init_script(axe_source)
    page = context.new_page()
    yield mode, page
    context.close()


RUN_AXE = """async (tags) => {
  await document.fonts.ready;
  const result = await axe.run(document, {runOnly: {type: "tag", values: tags},
                                          resultTypes: ["violations"]});
  return result.violations.map((v) => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map((n) => ({target: n.target.join(" "), html: n.html,
                                summary: n.failureSummary})),
  }));
}"""


def describe(path: str, mode: str, violations: list[dict], limit: int = 5) -> str:
    lines = [f"{path} ({mode} mode): {sum(len(v['nodes']) for v in violations)} elements violate "
             f"{len(violations)} rules"]
    for v in violations:
        lines.append(f"  {v['id']} ({v['impact']}): {v['help']}, {len(v['nodes'])} elements")
        for node in v["nodes"][:limit]:
            summary = " ".join(node["summary"].split())[:300]
            lines.append(f"    {node['target']}\n      {node['html'][:200]}\n      {summary}")
        if len(v["nodes"]) > limit:
            lines.append(f"    ... and {len(v['nodes']) - limit} more")
    return "\n".join(lines)


@pytest.mark.parametrize("path", published_pages() + ["search.html?q=vmap"])
def test_page_has_no_wcag_violations(axe_page, site_root, path):
    mode, page = axe_page
    assert (site_root / path.split("?")[0]).is_file(), f"{path} was not built"
    page.goto(path, wait_until="load")
    assert page.evaluate("document.documentElement.dataset.theme") == mode
    if "?q=" in path:
        page.wait_for_selector("#search-results ul.search li a")
    violations = page.evaluate(RUN_AXE, AXE_TAGS)
    assert not violations, describe(path, mode, violations)


# Alt text must say what an image shows: not missing, not empty, not a file name or a default.
FILE_NAME = re.compile(r"^[\w./-]+\.(png|jpe?g|svg|gif|webp)$", re.I)
PLACEHOLDER = re.compile(r"^(image|img|figure|fig|plot|chart|graph|picture|output|"
                         r"<[^>]*>|matplotlib\.\w+\.\w+ object.*)$", re.I)
MIN_ALT_WORDS = 8


def test_every_image_has_alt_text_that_describes_it(site_root):
    """Every <img> of the built site has an alt that states what it shows (a sentence, not a
    file name); decorative images must say so with alt="" AND role="presentation"."""
    from html.parser import HTMLParser

    class Images(HTMLParser):
        def __init__(self):
            super().__init__(convert_charrefs=True)
            self.images: list[dict] = []

        def handle_starttag(self, tag, attrs):
            if tag == "img":
                self.images.append(dict(attrs))

    problems, count = [], 0
    for html in sorted(site_root.rglob("*.html")):
        if html.relative_to(site_root).parts[0] == "_static":
            continue
        parser = Images()
        parser.feed(html.read_text(encoding="utf-8"))
        for image in parser.images:
            count += 1
            alt = (image.get("alt") or "").strip()
            where = f"{html.relative_to(site_root)}: <img src={image.get('src')!r}>"
            if image.get("role") == "presentation" and "alt" in image and not alt:
                continue
            if not alt:
                problems.append(f"{where} has no alt text")
            elif FILE_NAME.match(alt) or PLACEHOLDER.match(alt):
                problems.append(f"{where} has alt {alt!r}, which says nothing about the image")
            elif len(alt.split()) < MIN_ALT_WORDS:
                problems.append(f"{where} has alt {alt!r}: state what it shows (axes, finding) "
                                f"in at least {MIN_ALT_WORDS} words")
    assert count >= 3, f"only {count} images found: the plots of the guide are missing"
    assert not problems, "\n".join(problems)
