"""How the site looks: light and dark colour modes keep code readable, the step pages fit a
phone's screen, and screenshots of a step page for a human to look at."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from tests import pass_cache
from tests.browser.support import PHONE, SCREENSHOTS, STEPS, chosen_mode_js, new_context, published_pages
from tests.browser.survey import per_page

pytestmark = [pytest.mark.build, pytest.mark.browser]

HERE = Path(__file__).parent
COLORS_JS = (HERE / "colors.js").read_text(encoding="utf-8")
OVERFLOW_JS = (HERE / "overflow.js").read_text(encoding="utf-8")
MIN_CONTRAST = 4.5  # WCAG AA for normal text


def switch_mode(page, mode: str):
    """Choose a colour mode with the theme's switch (a dropdown: auto, light, dark)."""
    page.locator(".theme-switch-button:visible").first.click()
    page.locator(f".theme-change-button[data-mode={mode}]:visible").click()
    page.wait_for_selector(f'html[data-theme="{mode}"]', state="attached")
    page.keyboard.press("Escape")  # close the dropdown


def measure(page, selector: str) -> dict:
    """Contrast of the first `selector` element's text (and of every text colour inside it)."""
    return page.evaluate(f"(selector) => ({COLORS_JS}).measure(document.querySelector(selector))", selector)


def low_contrast(result: dict) -> list[str]:
    bad = []
    if result["ratio"] < MIN_CONTRAST:
        bad.append(
            f"{result['element']}: text {result['color']} on rgb{tuple(result['background'][:3])}"
            f" has contrast {result['ratio']:.2f}"
        )
    bad += [
        f"{result['element']}: {colors} ({token['example']!r}) has contrast {token['ratio']:.2f}"
        for colors, token in result["tokens"].items()
        if token["ratio"] < MIN_CONTRAST
    ]
    return bad


@pytest.mark.built_inputs.with_args(pass_cache.built_pages("guide/arrays.html", "guide/grad.html"))
@pytest.mark.parametrize("mode", ["light", "dark"])
def test_colour_mode_renders_readable_code(page, mode):
    page.goto("guide/arrays.html")
    switch_mode(page, mode)
    assert page.evaluate("document.documentElement.dataset.theme") == mode
    luminance = page.evaluate(
        f"(() => {{ const C = {COLORS_JS}; return C.luminance(C.background(document.body)); }})()"
    )
    if mode == "dark":
        assert luminance < 0.05, f"dark mode page background has luminance {luminance:.3f}"
    else:
        assert luminance > 0.8, f"light mode page background has luminance {luminance:.3f}"
    problems = []
    for selector in ("div.cell_input pre", "div.cell_output pre", "div.cell_output .traceback pre"):
        problems += low_contrast(measure(page, selector))
    assert not problems, f"{mode} mode:\n" + "\n".join(problems)
    # The choice persists: the next page opens in the same mode.
    page.goto("guide/grad.html")
    assert page.evaluate("document.documentElement.dataset.theme") == mode


#: Keeps the colour mode of ``<html>`` (``data-theme``) once the page is parsed: what the first
#: paints showed, before any deferred script (the theme's among them) has run.
THEME_WHEN_PARSED_JS = """document.addEventListener("readystatechange", () => {
  if (document.readyState === "interactive") window.themeWhenParsed = document.documentElement.dataset.theme;
});"""


@pytest.mark.built_inputs.with_args(pass_cache.built_pages("guide/grad.html"))
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_first_visit_is_drawn_in_its_colour_mode_from_the_start(context, scheme):
    """A reader who never chose a mode ("auto") sees the page in the system's colour scheme from
    its first paint: the script in the page's head sets it, and the theme's script, which runs
    once the page is parsed, finds it set. Changing it then would style and lay out the whole
    page again after drawing it without the mode's colours: on guide/sharding, 233 ms of a
    phone's time (Chromium with a 4x CPU slowdown)."""
    context.add_init_script(THEME_WHEN_PARSED_JS)
    page = context.new_page()
    page.emulate_media(color_scheme=scheme)
    page.goto("guide/grad.html")
    parsed, loaded = page.evaluate("[window.themeWhenParsed, document.documentElement.dataset.theme]")
    assert (parsed, loaded) == (scheme, scheme), f"data-theme: {parsed!r} when parsed, {loaded!r} when loaded"


CELLS_CONTRAST_JS = f"""() => {{
  const C = {COLORS_JS};
  const bad = [];
  for (const el of document.querySelectorAll("div.cell pre")) {{
    const m = C.measure(el);
    if (m.ratio < {MIN_CONTRAST}) bad.push(`${{m.element}}: text ${{m.color}} has contrast ${{m.ratio.toFixed(2)}}`);
    for (const [colors, t] of Object.entries(m.tokens))
      if (t.ratio < {MIN_CONTRAST}) bad.push(`${{m.element}}: ${{colors}} ("${{t.example}}") has contrast ${{t.ratio.toFixed(2)}}`);
  }}
  return [...new Set(bad)];
}}"""


STEP_PAGES = [f"{step}.html" for step in STEPS]


@pytest.fixture(scope="module")
def reader_in_mode(browser, site_url):
    """One browser page per colour mode for this worker (the mode chosen as the theme's switch
    stores it; test_colour_mode_renders_readable_code uses the switch itself)."""
    contexts = {}

    def open_page(mode: str):
        if mode not in contexts:
            contexts[mode] = new_context(browser, site_url)
            contexts[mode].add_init_script(chosen_mode_js(mode))
            contexts[mode].new_page()
        return contexts[mode].pages[0]

    yield open_page
    for context in contexts.values():
        context.close()


@pytest.mark.built_inputs.with_args(pass_cache.built_page)
@pytest.mark.parametrize(("mode", "path"), per_page(STEP_PAGES, "light", "dark"))
def test_every_cell_of_a_step_page_is_readable(reader_in_mode, mode, path):
    """Every code and output block of each of the ten steps, including coloured outputs (rich
    tables, ANSI colours), keeps its text at WCAG AA contrast."""
    page = reader_in_mode(mode)
    page.goto(path)
    assert page.evaluate("document.documentElement.dataset.theme") == mode
    problems = page.evaluate(CELLS_CONTRAST_JS)
    assert not problems, f"{path}, {mode} mode, text with contrast below {MIN_CONTRAST}:\n" + "\n".join(
        problems
    )


@pytest.fixture
def phone(browser, site_url):
    """A 375-pixel-wide viewport (PHONE), for one test."""
    context = new_context(browser, site_url, PHONE, timeout_ms=None)
    yield context.new_page()
    context.close()


@pytest.fixture(scope="module")
def phone_reader(browser, site_url):
    """The phone of :func:`phone`, one for this worker's per-page checks."""
    context = new_context(browser, site_url, PHONE, timeout_ms=None)
    yield context.new_page()
    context.close()


def sideways_scrolling(phone, paths) -> list[str]:
    """The pages among `paths` wider than the phone's screen, with the elements to blame."""
    problems = []
    for path in paths:
        phone.goto(path)
        result = phone.evaluate(OVERFLOW_JS)
        if result["scrollWidth"] > result["innerWidth"] + 1:
            culprits = "\n    ".join(result["offenders"]) or "(no single element found)"
            problems.append(
                f"{path} is {result['scrollWidth']}px wide in a "
                f"{result['innerWidth']}px viewport; too wide:\n    {culprits}"
            )
    return problems


@pytest.mark.built_inputs.with_args(pass_cache.built_page)
@pytest.mark.parametrize("path", per_page(published_pages()))
def test_page_does_not_scroll_sideways_on_a_phone(phone_reader, path):
    problems = sideways_scrolling(phone_reader, [path])
    assert not problems, "\n".join(problems)


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    return struct.unpack(">II", data[16:24])


@pytest.mark.built_inputs.with_args(pass_cache.built_pages("guide/vmap.html"))
def test_screenshots_of_a_step_page(page):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.goto("guide/vmap.html")
    for mode in ("light", "dark"):
        switch_mode(page, mode)
        page.mouse.move(0, 0)  # no hover effects or tooltips in the picture
        path = SCREENSHOTS / f"vmap-{mode}.png"
        path.unlink(missing_ok=True)
        page.screenshot(path=path, full_page=False)
        width, height = png_size(path)
        assert (width, height) == (1280, 900)
        assert path.stat().st_size > 20_000, f"{path} is suspiciously small (blank page?)"


@pytest.mark.built_inputs.with_args(pass_cache.built_pages("guide/vmap.html"))
def test_screenshots_of_a_step_page_on_a_phone(phone):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    phone.goto("guide/vmap.html")
    for mode in ("light", "dark"):
        switch_mode(phone, mode)
        phone.mouse.move(0, 0)
        path = SCREENSHOTS / f"vmap-{mode}-375.png"
        path.unlink(missing_ok=True)
        phone.screenshot(path=path, full_page=False)
        assert png_size(path) == (375, 812)
        assert path.stat().st_size > 10_000, f"{path} is suspiciously small (blank page?)"
