"""Every published page loads in a real browser without console errors, failed requests or
requests to other hosts (in the visit of tests/browser/survey.py)."""

from __future__ import annotations

import pytest

from tests.browser.support import is_local, published_pages
from tests.browser.survey import per_page

pytestmark = [pytest.mark.build, pytest.mark.browser]


@pytest.mark.parametrize("path", per_page(published_pages() + ["search.html?q=vmap"]))
def test_page_loads_cleanly(visitor, site_root, path):
    assert (site_root / path.split("?")[0]).is_file(), f"{path} was not built"
    visit = visitor.visit(path)
    assert visit.status is not None and visit.status < 400, f"{path}: HTTP {visit.status}"
    external = sorted({u for u in visit.requests if not is_local(u)})
    assert not external, f"{path} requests other hosts:\n" + "\n".join(external)
    assert not visit.problems, f"{path}:\n" + "\n".join(visit.problems)


def test_site_has_a_favicon(page, site_url):
    """Browsers ask for /favicon.ico unless the page names its icon; a 404 there is a console
    error on a reader's first visit."""
    page.goto("index.html")
    icon = page.evaluate("""() => { const l = document.querySelector('link[rel~="icon"]');
                                    return l ? l.href : null; }""")
    url = icon or site_url + "favicon.ico"
    response = page.request.get(url)
    assert response.ok, (
        f"{url}: HTTP {response.status}; set html_favicon in conf.py"
        if not icon
        else f"the page's icon {url}: HTTP {response.status}"
    )
