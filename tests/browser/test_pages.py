"""Every published page loads in a real browser without console errors, failed requests or
requests to other hosts (in the visit of tests/browser/survey.py)."""

from __future__ import annotations

import pytest

from tests import pass_cache
from tests.browser.support import is_local, published_pages
from tests.browser.survey import per_page

pytestmark = [pytest.mark.build, pytest.mark.browser]


@pytest.mark.built_inputs.with_args(pass_cache.built_page)
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


#: Other hosts: a name, an IPv4 address and an IPv6 address (from the documentation ranges).
ELSEWHERE = [
    "https://fonts.googleapis.com/css2?family=Roboto",
    "http://192.0.2.1/x.js",
    "http://[2001:db8::1]/",
]

FETCH_JS = """async (urls) => Promise.all(urls.map(async (url) => {
  const start = performance.now();
  try { await fetch(url, {mode: "no-cors", signal: AbortSignal.timeout(5000)}); return "loaded"; }
  catch (error) { return `failed after ${Math.round(performance.now() - start)} ms`; }
}))"""


def test_the_browser_reaches_no_other_host(page, site_url):
    """Every test's browser is offline but for the site (support.CHROMIUM_ARGS): Chromium's own
    resolver refuses every other host, even an IP address (which needs no name lookup), so no
    request waits for the network, whatever the machine's network does."""
    page.goto("index.html")
    failures = {}
    page.on("requestfailed", lambda request: failures.setdefault(request.url, request.failure))
    outcomes = page.evaluate(FETCH_JS, ELSEWHERE + [site_url + "index.html"])
    assert outcomes[-1] == "loaded", f"the site's own page did not load: {outcomes[-1]}"
    for _ in range(50):  # the failure events may arrive after fetch's answers
        if all(url in failures for url in ELSEWHERE):
            break
        page.wait_for_timeout(100)
    refused = {url: failures.get(url) for url in ELSEWHERE}
    assert all(error == "net::ERR_NAME_NOT_RESOLVED" for error in refused.values()), (
        f"requests to other hosts not refused by the resolver: {refused}; fetch: {outcomes}"
    )
