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


#: Addresses no test may wait for: a host name, an IPv4 address that drops packets, an IPv6 one.
ELSEWHERE = [
    "https://fonts.googleapis.com/css2?family=Roboto",
    "http://10.255.255.1/x.js",
    "http://[2001:db8::1]/",
]

FETCH_JS = """async (urls) => Promise.all(urls.map(async (url) => {
  const start = performance.now();
  try { await fetch(url, {mode: "no-cors", signal: AbortSignal.timeout(5000)}); return [url, "loaded", performance.now() - start]; }
  catch (error) { return [url, String(error), performance.now() - start]; }
}))"""


def test_the_browser_reaches_no_other_host(page, site_url):
    """Every test's browser is offline but for the site (support.CHROMIUM_ARGS): a request to any
    other host fails at once, instead of waiting for the network."""
    page.goto("index.html")
    outcomes = page.evaluate(FETCH_JS, ELSEWHERE + [site_url + "index.html"])
    *elsewhere, (_, own, _) = outcomes
    assert own == "loaded", own
    slow_or_loaded = [o for o in elsewhere if o[1] == "loaded" or o[2] > 2000]
    assert not slow_or_loaded, f"requests to other hosts that loaded or took over 2 s: {slow_or_loaded}"
