"""How the site looks: the colour mode a reader chooses or the system has holds from the first
paint and on every page, every cell of a step page is readable in both modes, the pages fit a
phone's screen, and screenshots of a step page for a human to look at."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from tests import pass_cache
from tests.browser.support import DESKTOP, PHONE, SCREENSHOTS, STEPS, new_context, published_pages
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


@pytest.mark.built_inputs.with_args(pass_cache.built_pages("guide/arrays.html", "guide/grad.html"))
@pytest.mark.parametrize("mode", ["light", "dark"])
def test_the_colour_mode_switch_colours_the_page_and_the_next_ones(page, mode):
    page.goto("guide/arrays.html")
    switch_mode(page, mode)
    luminance = page.evaluate(
        f"(() => {{ const C = {COLORS_JS}; return C.luminance(C.background(document.body)); }})()"
    )
    assert luminance < 0.05 if mode == "dark" else luminance > 0.8, f"{mode} mode background: {luminance:.3f}"
    page.goto("guide/grad.html")  # the choice persists
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
    once the page is parsed, finds it set (a late change restyles the whole page: 233 ms of a
    phone's time on guide/sharding)."""
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


@pytest.fixture(scope="module")
def reader_in_mode(browser, site_url):
    """One browser page per colour mode for this worker (the mode chosen as the theme's switch
    stores it)."""
    contexts = {}

    def open_page(mode: str):
        if mode not in contexts:
            contexts[mode] = new_context(browser, site_url, mode=mode)
            contexts[mode].new_page()
        return contexts[mode].pages[0]

    yield open_page
    for context in contexts.values():
        context.close()


@pytest.mark.built_inputs.with_args(pass_cache.built_page)
@pytest.mark.parametrize(("mode", "path"), per_page([f"{step}.html" for step in STEPS], "light", "dark"))
def test_every_cell_of_a_step_page_is_readable(reader_in_mode, mode, path):
    """Every code, output and traceback block of each step, coloured outputs included (rich
    tables, ANSI colours), keeps its text at WCAG AA contrast."""
    page = reader_in_mode(mode)
    page.goto(path)
    assert page.evaluate("document.documentElement.dataset.theme") == mode
    problems = page.evaluate(CELLS_CONTRAST_JS)
    assert not problems, f"{path}, {mode} mode, contrast below {MIN_CONTRAST}:\n" + "\n".join(problems)


@pytest.fixture(scope="module")
def phone(browser, site_url):
    """A 375-pixel-wide viewport (PHONE), one for this worker's per-page checks."""
    with new_context(browser, site_url, PHONE, timeout_ms=None) as context:
        yield context.new_page()


@pytest.mark.built_inputs.with_args(pass_cache.built_page)
@pytest.mark.parametrize("path", per_page(published_pages()))
def test_page_does_not_scroll_sideways_on_a_phone(phone, path):
    phone.goto(path)
    result = phone.evaluate(OVERFLOW_JS)
    culprits = "\n    ".join(result["offenders"]) or "(no single element found)"
    assert result["scrollWidth"] <= result["innerWidth"] + 1, (
        f"{path} is {result['scrollWidth']}px wide in a {result['innerWidth']}px viewport; too wide:\n    {culprits}"
    )


@pytest.mark.built_inputs.with_args(pass_cache.built_pages("guide/vmap.html"))
@pytest.mark.parametrize(
    ("viewport", "least"), [(DESKTOP, 20_000), (PHONE, 10_000)], ids=["desktop", "phone"]
)
def test_screenshots_of_a_step_page(browser, site_url, viewport, least):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    with new_context(browser, site_url, viewport, timeout_ms=None) as context:
        page = context.new_page()
        page.goto("guide/vmap.html")
        for mode in ("light", "dark"):
            switch_mode(page, mode)
            page.mouse.move(0, 0)  # no hover effects or tooltips in the picture
            path = SCREENSHOTS / f"vmap-{mode}{'' if viewport == DESKTOP else '-375'}.png"
            path.unlink(missing_ok=True)
            page.screenshot(path=path, full_page=False)
            data = path.read_bytes()
            assert data[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", data[16:24]) == tuple(
                viewport.values()
            )
            assert len(data) > least, f"{path} is suspiciously small (blank page?)"
