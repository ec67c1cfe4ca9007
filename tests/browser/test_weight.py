"""Page weight: what a reader's browser downloads to show a page, before compression.

Budget: a page of the book loads at most 600 KB (HTML, styles, scripts, fonts, images), with an
empty cache. Each page's figure is written to WEIGHT_REPORT/; the heaviest page and the heaviest
step page are printed at the end of the test session.
"""

from __future__ import annotations

import json

import pytest

from tests import pass_cache
from tests.browser.support import BUDGET, STEPS, WEIGHT_REPORT, published_pages
from tests.browser.survey import per_page

pytestmark = [pytest.mark.build, pytest.mark.browser]

#: Files that no page may load any more (they were the bulk of every page).
NEVER = ("fontawesome.js", "tex-svg.js", "mathjax")


def test_every_load_downloads_everything(visitor):
    """The cache really is off: a page visited again downloads the same files again, byte for
    byte, and none comes from the browser's cache."""
    first, again = visitor.first_visit("index.html"), visitor.first_visit("index.html")
    assert not first.from_cache and not again.from_cache, again.from_cache[:3]
    assert len(first.sizes) >= 10 and again.sizes == first.sizes, sorted(set(first.sizes) ^ set(again.sizes))


WEIGHED = sorted(set(published_pages()) | {f"{s}.html" for s in STEPS})


# One test per page, in the visit of tests/browser/survey.py.
@pytest.mark.built_inputs.with_args(pass_cache.built_page)
@pytest.mark.parametrize("path", per_page(WEIGHED))
def test_page_stays_within_the_budget(visitor, site_root, path):
    visit = visitor.visit(path)
    assert not visit.from_cache, f"{path}: {len(visit.from_cache)} files came from the browser's cache"
    sizes = visit.sizes
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
