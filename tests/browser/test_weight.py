"""Page weight: what a reader's browser downloads to show a page, before compression.

Budget: a page of the book loads at most 600 KB (HTML, styles, scripts, fonts, images), with an
empty cache. Each page's figure is written to WEIGHT_REPORT/; the heaviest page and the heaviest
step page are printed at the end of the test session.
"""

from __future__ import annotations

import json

import pytest

from tests.browser.conftest import offline
from tests.browser.support import BUDGET, STEPS, WEIGHT_REPORT, published_pages

pytestmark = [pytest.mark.build, pytest.mark.browser]

#: Files that no page may load any more (they were the bulk of every page).
NEVER = ("fontawesome.js", "tex-svg.js", "mathjax")


@pytest.fixture(scope="module")
def weighing_page(browser, site_url):
    """One page for every load, with the browser's cache turned off (Chrome DevTools Protocol;
    the offline routes turn it off too): each load downloads everything, as a first visit with
    an empty cache does, without the cost of a new context (a renderer process) per page. Every
    load checks that no file came from the cache."""
    context = offline(browser.new_context(base_url=site_url, viewport={"width": 1280, "height": 900}))
    page = context.new_page()
    devtools = context.new_cdp_session(page)
    devtools.send("Network.enable")
    devtools.send("Network.setCacheDisabled", {"cacheDisabled": True})
    page.from_cache = []  # requests the browser answered from its cache (there must be none)

    def served_from_cache(event):
        page.from_cache.append(event)

    def received(event):
        if event["response"].get("fromDiskCache"):
            page.from_cache.append(event)

    devtools.on("Network.requestServedFromCache", served_from_cache)
    devtools.on("Network.responseReceived", received)
    yield page
    context.close()


def load(page, path: str) -> dict[str, int]:
    """Bytes of every response of one load of `path` (the page's cache is off)."""
    responses = []
    page.from_cache.clear()
    if page.url.startswith("http"):
        page.evaluate("localStorage.clear(); sessionStorage.clear()")  # a first visit

    def record(response):
        responses.append(response)

    page.on("response", record)
    try:
        page.goto(path, wait_until="load")
        page.evaluate("document.fonts.ready.then(() => true)")
        page.wait_for_timeout(200)  # late requests: fonts, deferred scripts
    finally:
        page.remove_listener("response", record)
    assert not page.from_cache, f"{path}: {len(page.from_cache)} files came from the browser's cache"
    sizes = {}
    for response in responses:
        try:
            sizes[response.url.split("?")[0]] = len(response.body())
        except Exception:  # redirects and aborted requests have no body
            pass
    return sizes


def test_every_load_downloads_everything(weighing_page):
    """The cache really is off: a page loaded again downloads the same files again, byte for
    byte, and none comes from the browser's cache (load() asserts it)."""
    first, again = load(weighing_page, "index.html"), load(weighing_page, "index.html")
    assert len(first) >= 10 and again == first, sorted(set(first) ^ set(again))


WEIGHED = sorted(set(published_pages()) | {f"guide/{s}.html" for s in STEPS})


# One test per page, so that xdist spreads the loads over every worker.
@pytest.mark.parametrize("path", WEIGHED)
def test_page_stays_within_the_budget(weighing_page, site_root, path):
    sizes = load(weighing_page, path)
    weight = {"bytes": sum(sizes.values()), "requests": len(sizes)}
    WEIGHT_REPORT.mkdir(parents=True, exist_ok=True)
    (WEIGHT_REPORT / (path.replace("/", "--") + ".json")).write_text(
        json.dumps({"page": path, **weight}), encoding="utf-8"
    )
    heavy = [u for u in sizes if any(name in u for name in NEVER)]
    assert not heavy, f"{path} loads {', '.join(heavy)}"
    biggest = sorted(sizes.items(), key=lambda kv: -kv[1])[:6]
    assert weight["bytes"] <= BUDGET, (
        f"{path} loads {weight['bytes'] / 1000:.0f} KB in {len(sizes)} "
        f"requests (budget {BUDGET / 1000:.0f} KB); largest: "
        + ", ".join(f"{u.rsplit('/', 1)[-1]} {n / 1000:.0f} KB" for u, n in biggest)
    )
