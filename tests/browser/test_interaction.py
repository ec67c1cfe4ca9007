"""What a reader does with the site: search (test_accessibility.py types a search), walk the book
with previous/next, copy a snippet, read a declared error's traceback and the environment stamp."""

from __future__ import annotations

import pytest

from jaxbook import ROOT
from tests import pass_cache
from tests.browser.support import new_context, reading_order
from tests.browser.survey import per_page

pytestmark = [pytest.mark.build, pytest.mark.browser]


@pytest.mark.built_inputs.with_args(pass_cache.built_pages("search.html"))
def test_search_summaries_are_patched_before_the_search_starts(page):
    """The search runs as soon as searchindex.js has run, before DOMContentLoaded; a result page
    that answers fast is summarised then. _static/search-summary.js must be in place by that time
    (test_search_summaries_show_page_text_not_the_toolbar sees a late patch only when an answer
    beats it)."""

    def marked_index(route):
        answer = route.fetch()
        probe = "window.jaxbookPatchedAtIndex = Boolean(Search.htmlToText.jaxbook);\n"
        route.fulfill(response=answer, body=probe + answer.text())

    page.route("**/searchindex.js", marked_index)
    page.goto("search.html?q=vmap")
    page.wait_for_selector("#search-results ul.search li p.context")
    assert page.evaluate("window.jaxbookPatchedAtIndex") is True


@pytest.mark.built_inputs.with_args(pass_cache.built_pages("search.html"))
def test_search_summaries_show_page_text_not_the_toolbar(page):
    page.goto("search.html?q=vmap")
    page.wait_for_selector("#search-results ul.search li p.context")
    summaries = page.eval_on_selector_all(
        "#search-results ul.search li p.context", "ps => ps.map(p => p.textContent)"
    )
    assert summaries and not any("Light" in s and "Dark" in s for s in summaries), summaries[:3]
    assert not any("Outputs computed with JAX" in s or "Run this page yourself" in s for s in summaries), (
        summaries[:3]
    )


def relative(page, site_url) -> str:
    """The page's docname (URL without the site prefix, .html and fragment)."""
    url = page.url.split("#")[0]
    assert url.startswith(site_url), url
    return url[len(site_url) :].removesuffix(".html")


def follow(page, site_url, selector) -> str | None:
    """Click the link `selector` and return the docname it leads to (None if there is no link)."""
    link = page.locator(selector)
    if link.count() == 0:
        return None
    before = page.url
    link.first.click()
    page.wait_for_url(lambda url: url != before)
    page.wait_for_load_state("domcontentloaded")
    return relative(page, site_url)


def test_reading_order_of_the_toctrees():
    """The toctrees (the sources of previous/next) put the landing page, the prerequisites, the
    ten steps (step 9's part 2 nested under it), the capstone (its part 2 nested under it), What
    to build next (the way on after the capstone), the optional "under the hood" pages in the
    order of their steps, the reference pages and the study plan in this order: the book's order,
    written here only to be checked."""
    steps = [
        "arrays", "grad", "jit", "vmap", "random", "pytrees", "training", "control_flow",
        "sharding", "sharded_training", "profiling", "capstone", "capstone_resume",
    ]  # fmt: skip
    under_the_hood = [
        "arrays_under_the_hood", "grad_under_the_hood", "jit_under_the_hood", "random_under_the_hood",
        "pytrees_under_the_hood", "training_under_the_hood", "control_flow_under_the_hood",
        "sharding_under_the_hood", "sharding_costs", "multiprocess", "profiling_under_the_hood",
    ]  # fmt: skip
    reference = [
        "mistakes", "comparison", "faq", "accelerators", "parallelism", "transformer_parallelism",
        "glossary",
    ]  # fmt: skip
    start = [
        "index",
        "docs/prerequisites",
        *(f"guide/{s}" for s in steps),
        "docs/next_steps",
        *(f"guide/{s}" for s in under_the_hood),
        *(f"docs/{r}" for r in reference),
        "practice/index",
    ]
    assert reading_order()[: len(start)] == start


READING_ORDER = reading_order()
#: Each page of the reading order and the page its next link must open (None: the last has none).
NEXT = dict(zip(READING_ORDER, [*READING_ORDER[1:], None]))


@pytest.fixture(scope="module")
def walker(browser, site_url):
    """One browser page for this worker's next-link tests (each starts by opening its own page)."""
    context = new_context(browser, site_url)
    yield context.new_page()
    context.close()


@pytest.mark.built_inputs.with_args(pass_cache.built_page)
@pytest.mark.parametrize("path", per_page([f"{doc}.html" for doc in READING_ORDER]))
def test_next_link_opens_the_next_page_of_the_reading_order(walker, site_url, path):
    """Together, one test per page: the next links walk the whole book in the toctrees' order
    (each keyed by its own built page, so an edit re-checks the pages it changed)."""
    walker.goto(path, wait_until="domcontentloaded")  # the link works once the document is parsed
    doc = path.removesuffix(".html")
    assert relative(walker, site_url) == doc
    assert follow(walker, site_url, "a.right-next") == NEXT[doc]


PREVIOUS_WALK = READING_ORDER[READING_ORDER.index("guide/jit") :: -1]


@pytest.mark.built_inputs.with_args(pass_cache.built_pages(*(f"{p}.html" for p in PREVIOUS_WALK)))
def test_previous_links_walk_back_to_the_landing_page(page, site_url):
    page.goto("guide/jit.html")
    walked = [relative(page, site_url)]
    while len(walked) < 10 and (previous := follow(page, site_url, "a.left-prev")):
        walked.append(previous)
    assert walked == PREVIOUS_WALK


@pytest.mark.built_inputs(pass_cache.built_pages("guide/arrays.html"), "snippets/arrays/numpy_style.py")
def test_copy_button_copies_the_snippet_only(context, page, site_url):
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site_url.rstrip("/"))
    page.goto("guide/arrays.html")
    cell = page.locator("div.cell").first
    assert cell.locator(".jaxbook-snippet-file").inner_text() == "snippets/arrays/numpy_style.py"
    source = cell.locator("div.cell_input")
    source.hover()
    button = source.locator("button.copybtn")
    button.wait_for(state="visible")
    button.click()
    copied = page.evaluate("navigator.clipboard.readText()")

    snippet = (ROOT / "snippets" / "arrays" / "numpy_style.py").read_text(encoding="utf-8")
    assert copied.rstrip() == snippet.rstrip()
    assert not any(line.lstrip().startswith((">>>", "In [", "$ ")) for line in copied.splitlines())
    output = cell.locator("div.cell_output").inner_text()
    leaked = [
        line
        for line in output.splitlines()
        if line.strip() and line.strip() not in snippet and line.strip() in copied
    ]
    assert output.strip() and not leaked, f"output lines in the copied text: {leaked}"


@pytest.mark.built_inputs.with_args(pass_cache.built_pages("guide/arrays.html"))
def test_declared_error_shows_its_traceback_and_the_page_its_stamp(page):
    page.goto("guide/arrays.html")
    traceback = page.locator("div.cell_output .output.traceback", has_text="TypeError").first
    traceback.scroll_into_view_if_needed()
    assert traceback.is_visible()
    text = traceback.inner_text()
    assert "snippets/arrays/inplace_error.py" in text and "TypeError" in text, text
    assert "jax/_src" not in text  # trimmed to the reader's code
    stamp = page.locator("p.jaxbook-stamp")
    assert stamp.count() == 1
    stamp.scroll_into_view_if_needed()
    assert stamp.is_visible()
    assert "8 emulated CPU devices" in stamp.inner_text()
