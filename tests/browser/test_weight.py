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


def load(browser, site_url, path: str) -> dict[str, int]:
    """Bytes of every response of one load of `path` in a fresh (cache-empty) context."""
    context = offline(browser.new_context(base_url=site_url, viewport={"width": 1280, "height": 900}))
    try:
        page = context.new_page()
        responses = []
        page.on("response", lambda response: responses.append(response))
        page.goto(path, wait_until="load")
        page.evaluate("document.fonts.ready.then(() => true)")
        page.wait_for_timeout(200)  # late requests: fonts, deferred scripts
        sizes = {}
        for response in responses:
            try:
                sizes[response.url.split("?")[0]] = len(response.body())
            except Exception:  # redirects and aborted requests have no body
                pass
        return sizes
    finally:
        context.close()


WEIGHED = sorted(set(published_pages()) | {f"guide/{s}.html" for s in STEPS})


# One test per page, so that xdist spreads the loads over every worker.
@pytest.mark.parametrize("path", WEIGHED)
def test_page_stays_within_the_budget(browser, site_url, site_root, path):
    sizes = load(browser, site_url, path)
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
