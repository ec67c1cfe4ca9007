"""Page weight: what a reader's browser downloads to show a page, before compression.

Budget: a page of the book loads at most 600 KB (HTML, styles, scripts, fonts, images), with an
empty cache. The heaviest page and its figure are printed at the end of the test session.
"""

from __future__ import annotations

import json

import pytest

from tests.browser.conftest import offline
from tests.browser.support import STEPS, WEIGHT_REPORT, published_pages

pytestmark = [pytest.mark.build, pytest.mark.browser, pytest.mark.xdist_group("site")]

BUDGET = 600 * 1000  # bytes, before compression
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


def test_every_page_stays_within_the_budget(browser, site_url, site_root):
    pages = sorted(set(published_pages()) | {f"guide/{s}.html" for s in STEPS})
    weights, problems = {}, []
    for path in pages:
        sizes = load(browser, site_url, path)
        weights[path] = {"bytes": sum(sizes.values()), "requests": len(sizes)}
        heavy = [u for u in sizes if any(name in u for name in NEVER)]
        if heavy:
            problems.append(f"{path} loads {', '.join(heavy)}")
        if weights[path]["bytes"] > BUDGET:
            biggest = sorted(sizes.items(), key=lambda kv: -kv[1])[:6]
            problems.append(
                f"{path} loads {weights[path]['bytes'] / 1000:.0f} KB in {len(sizes)} "
                f"requests (budget {BUDGET / 1000:.0f} KB); largest: "
                + ", ".join(f"{u.rsplit('/', 1)[-1]} {n / 1000:.0f} KB" for u, n in biggest)
            )
    heaviest = max(weights, key=lambda p: weights[p]["bytes"])
    steps = {f"guide/{s}.html" for s in STEPS}
    heaviest_step = max(steps, key=lambda p: weights[p]["bytes"])
    WEIGHT_REPORT.write_text(
        json.dumps(
            {"budget": BUDGET, "heaviest": heaviest, "heaviest_step": heaviest_step, "pages": weights},
            indent=1,
        )
    )
    assert not problems, "\n".join(problems)
