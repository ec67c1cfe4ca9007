"""Accessibility of every published page: axe-core's WCAG 2.0/2.1 A and AA rules in light and
dark mode (axe-core as package-lock.json pins it, from node_modules/, injected into each page),
alt text that describes every image, and a keyboard-only walk through a step page."""

from __future__ import annotations

import re

import pytest

from jaxbook.pages import NOT_FOUND_PAGE
from tests import pass_cache
from tests.browser.support import new_context, published_pages
from tests.browser.survey import MODES, per_page

pytestmark = [pytest.mark.build, pytest.mark.browser]


def describe(path: str, mode: str, violations: list[dict], limit: int = 5) -> str:
    lines = [
        f"{path} ({mode} mode): {sum(len(v['nodes']) for v in violations)} elements violate "
        f"{len(violations)} rules"
    ]
    for v in violations:
        lines.append(f"  {v['id']} ({v['impact']}): {v['help']}, {len(v['nodes'])} elements")
        for node in v["nodes"][:limit]:
            summary = " ".join(node["summary"].split())[:300]
            lines.append(f"    {node['target']}\n      {node['html'][:200]}\n      {summary}")
        if len(v["nodes"]) > limit:
            lines.append(f"    ... and {len(v['nodes']) - limit} more")
    return "\n".join(lines)


@pytest.mark.built_inputs.with_args(pass_cache.built_page)
@pytest.mark.parametrize(
    ("mode", "path"), per_page([*published_pages(), NOT_FOUND_PAGE, "search.html?q=vmap"], *MODES)
)
def test_page_has_no_wcag_violations(visitor, site_root, mode, path):
    assert (site_root / path.split("?")[0]).is_file(), f"{path} was not built"
    visit = visitor.visit(path, mode)
    assert visit.theme[mode] == mode
    violations = visit.violations[mode]
    assert not violations, describe(path, mode, violations)


# Alt text must say what an image shows: not missing, not empty, not a file name or a default.
FILE_NAME = re.compile(r"^[\w./-]+\.(png|jpe?g|svg|gif|webp)$", re.I)
PLACEHOLDER = re.compile(
    r"^(image|img|figure|fig|plot|chart|graph|picture|output|"
    r"<[^>]*>|matplotlib\.\w+\.\w+ object.*)$",
    re.I,
)
MIN_ALT_WORDS = 8


def names_of_images(soup) -> list[tuple[str, str | None]]:
    """(what, name) of each image of a page: each ``<img>`` but a decorative one (``alt=""`` and
    ``role="presentation"``), and each picture rich draws as coloured text (a sharding map), named
    by the ``<div class="jaxbook-picture" role="img">`` right around it."""
    found = [
        (f"<img src={image.get('src')!r}>", image.get("alt"))
        for image in soup.find_all("img")
        if not (image.get("role") == "presentation" and image.get("alt") == "")
    ]
    for pre in soup.find_all("pre", style=re.compile("^white-space:pre;")):
        if "background-color" in str(pre):
            box = pre.parent
            named = "jaxbook-picture" in box.get("class", []) and box.get("role") == "img"
            found.append(
                (f"a coloured HTML picture {str(pre)[:80]}...", box.get("aria-label") if named else None)
            )
    return found


def test_every_image_has_alt_text_that_describes_it(site_root):
    """Every image of the built site has a name that states what it shows (a sentence, not a file
    name)."""
    from bs4 import BeautifulSoup

    problems, images = [], []
    for html in sorted(site_root.rglob("*.html")):
        if html.relative_to(site_root).parts[0] != "_static":
            soup = BeautifulSoup(html.read_text(encoding="utf-8"), "html.parser")
            images += [
                (f"{html.relative_to(site_root)}: {what}", name) for what, name in names_of_images(soup)
            ]
    for where, alt in images:
        alt = (alt or "").strip()
        if not alt:
            problems.append(f"{where} has no alt text")
        elif FILE_NAME.match(alt) or PLACEHOLDER.match(alt):
            problems.append(f"{where} has alt {alt!r}, which says nothing about the image")
        elif len(alt.split()) < MIN_ALT_WORDS:
            problems.append(
                f"{where} has alt {alt!r}: state what it shows (axes, finding) in {MIN_ALT_WORDS}+ words"
            )
    assert len(images) >= 3, f"only {len(images)} images found: the plots of the guide are missing"
    assert sum("HTML picture" in where for where, _ in images) >= 2, "the sharding step draws two maps"
    assert not problems, "\n".join(problems)


# ---------------------------------------------------------------------------------------------
# Keyboard: a walk through a step page with Tab alone.

STEP_PAGE = "guide/vmap.html"
#: The controls a keyboard user must reach on a step page, by what they do.
CONTROLS = {
    "skip link": "#pst-skip-link a",
    "search": ".search-button__button",
    "colour mode switch": ".theme-switch-button",
    "downloads": ".dropdown-download-buttons > button",
    "full screen": ".btn-fullscreen-button",
    "sidebar section toggle": "nav.bd-links summary",
    "copy button": "button.copybtn",
    "page contents": "nav.page-toc a",
    "next page": "a.right-next",
}

FOCUSED_JS = """() => {
  for (const a of document.getAnimations()) { try { a.finish(); } catch (e) {} }  // end of fade-ins
  const el = document.activeElement;
  if (!el || el === document.body) return null;
  const outlined = (node) => { const s = getComputedStyle(node);
    return s.outlineStyle !== "none" && parseFloat(s.outlineWidth) >= 1 &&
           !/rgba\\(.*, 0\\)$/.test(s.outlineColor); };
  let opacity = 1;
  for (let node = el; node && node.nodeType === 1; node = node.parentElement)
    opacity *= parseFloat(getComputedStyle(node).opacity);
  // The theme may draw the ring on a child (the chevron of a sidebar toggle), and the visible
  // box may be a child's (a <summary> whose only content is positioned).
  const parts = [el, ...el.querySelectorAll("*")];
  const shadow = getComputedStyle(el).boxShadow;
  const ring = parts.some(outlined) || (shadow && shadow !== "none");
  let r = el.getBoundingClientRect();
  for (const node of parts) { const b = node.getBoundingClientRect();
    if (b.width * b.height > r.width * r.height) r = b; }
  el.dataset.kbdWalk = String(Number(el.dataset.kbdWalk || 0) + 1);
  return {tag: el.tagName.toLowerCase(), text: (el.getAttribute("aria-label") || el.textContent || "")
            .trim().replace(/\\s+/g, " ").slice(0, 40), html: el.outerHTML.slice(0, 120),
          ring, opacity, width: r.width, height: r.height};
}"""


@pytest.fixture
def keyboard_page(browser, site_url):
    with new_context(browser, site_url, timeout_ms=30_000, mode="light") as context:
        yield context, context.new_page()


@pytest.mark.built_inputs.with_args(pass_cache.built_pages(STEP_PAGE))
def test_keyboard_walk_reaches_every_control_with_a_visible_focus_ring(keyboard_page):
    context, page = keyboard_page
    page.goto(STEP_PAGE)
    page.evaluate("document.fonts.ready")
    reached, problems = [], []
    for _ in range(800):
        page.keyboard.press("Tab")
        focused = page.evaluate(FOCUSED_JS)
        if focused is None:
            continue
        if focused["html"] in (r["html"] for r in reached[:1]) and len(reached) > 5:
            break  # back at the first control: the walk went round the page
        reached.append(focused)
        if not focused["ring"]:
            problems.append(f"no visible focus ring: {focused['html']}")
        if focused["opacity"] < 0.5 or focused["width"] < 4 or focused["height"] < 4:
            problems.append(
                f"focused but invisible (opacity {focused['opacity']:.2f}, "
                f"{focused['width']:.0f}x{focused['height']:.0f}px): {focused['html']}"
            )
    assert len(reached) > 20, f"Tab reached only {len(reached)} elements"
    for what, selector in CONTROLS.items():
        total = page.locator(selector).count()
        walked = page.locator(f"{selector}[data-kbd-walk]").count()
        if total == 0:
            problems.append(f"{what} ({selector}) is missing from {STEP_PAGE}")
        elif walked == 0:
            problems.append(f"Tab never reaches the {what} ({selector})")
    assert not problems, f"{STEP_PAGE}:\n" + "\n".join(dict.fromkeys(problems))


def focus_by_tab(page, selector: str, limit: int = 800):
    """Press Tab until the first visible `selector` element has the focus."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate(
            "(s) => { const el = document.activeElement; return !!el && el.matches(s); }", selector
        ):
            return
    pytest.fail(f"Tab never reaches {selector}")


@pytest.mark.built_inputs.with_args(pass_cache.built_pages(STEP_PAGE))
def test_keyboard_switches_colour_mode_and_opens_the_downloads(keyboard_page):
    context, page = keyboard_page
    page.goto(STEP_PAGE)
    focus_by_tab(page, ".theme-switch-button")
    page.keyboard.press("Enter")
    page.wait_for_selector(".theme-switch-container .dropdown-menu.show")
    for _ in range(4):
        if page.evaluate("document.activeElement.dataset.mode") == "dark":
            break
        page.keyboard.press("ArrowDown")
    assert page.evaluate("document.activeElement.dataset.mode") == "dark"
    page.keyboard.press("Space")
    page.wait_for_selector('html[data-theme="dark"]', state="attached")

    page.goto(STEP_PAGE)
    focus_by_tab(page, ".dropdown-download-buttons > button")
    page.keyboard.press("Enter")
    page.wait_for_selector(".dropdown-download-buttons .dropdown-menu.show")
    page.keyboard.press("ArrowDown")
    href = page.evaluate("document.activeElement.getAttribute('href')")
    assert href and href.endswith((".md", ".ipynb", ".zip", ".py")), href
    page.keyboard.press("Escape")
    assert not page.locator(".dropdown-download-buttons .dropdown-menu.show").count()


@pytest.mark.built_inputs.with_args(pass_cache.built_pages(STEP_PAGE))
def test_keyboard_toggles_a_sidebar_section(keyboard_page):
    """(Enter on the copy button the walk reaches is a click: test_copy_button_copies_the_snippet_only.)"""
    context, page = keyboard_page
    page.goto(STEP_PAGE)
    focus_by_tab(page, "nav.bd-links summary")
    is_open = "document.activeElement.parentElement.open"
    before = page.evaluate(is_open)
    page.keyboard.press("Space")
    assert page.evaluate(is_open) is not before
    page.keyboard.press("Enter")
    assert page.evaluate(is_open) is before


@pytest.mark.built_inputs.with_args(pass_cache.built_pages(STEP_PAGE, "search.html"))
def test_keyboard_searches_and_finds_vmap_first(keyboard_page):
    context, page = keyboard_page
    page.goto(STEP_PAGE)
    focus_by_tab(page, ".search-button__button")
    page.keyboard.press("Enter")
    field = page.locator("#pst-search-dialog input[name=q]")
    field.wait_for(state="visible")
    assert page.evaluate("document.activeElement.name") == "q"
    page.keyboard.type("vmap")
    page.keyboard.press("Enter")
    page.wait_for_url("**/search.html?q=vmap")
    page.wait_for_selector("#search-results ul.search li a")
    links = page.eval_on_selector_all(
        "#search-results ul.search li a", "as => as.map(a => a.getAttribute('href'))"
    )
    assert STEP_PAGE in [link.split("#")[0] for link in links[:5]], links[:10]
    focus_by_tab(page, "#search-results ul.search li a")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert "search.html" not in page.url
