"""Every published page loads in a real browser without console errors, failed requests or
requests to other hosts."""

from __future__ import annotations

import pytest

from tests.browser.conftest import offline
from tests.browser.support import is_local, published_pages

pytestmark = [pytest.mark.build, pytest.mark.browser]


class Recorder:
    """Collects, per page load, everything that a clean page must not produce."""

    def __init__(self, page):
        self.requests, self.problems, self.pending = [], [], set()
        page.on("request", self.on_request)
        page.on("requestfinished", lambda r: self.pending.discard(r))
        page.on("requestfailed", self.on_failed)
        page.on("response", self.on_response)
        page.on("console", self.on_console)
        page.on("pageerror", lambda e: self.problems.append(f"uncaught exception: {e}"))

    def on_request(self, request):
        self.requests.append(request.url)
        self.pending.add(request)

    def on_failed(self, request):
        self.pending.discard(request)
        self.problems.append(f"request failed ({request.failure}): {request.url}")

    def settle(self, page, quiet_ms=150, timeout_ms=10_000):
        """Wait until no request has been in flight for `quiet_ms` (like Playwright's
        "networkidle", which waits 500 ms: too slow for ~60 pages)."""
        quiet = waited = 0
        while quiet < quiet_ms and waited < timeout_ms:
            page.wait_for_timeout(50)
            waited += 50
            quiet = quiet + 50 if not self.pending else 0
        assert not self.pending, "requests still pending: " + ", ".join(r.url for r in self.pending)

    def on_response(self, response):
        if response.status >= 400:
            self.problems.append(f"HTTP {response.status}: {response.url}")

    def on_console(self, message):
        where = message.location or {}
        if message.type == "error" and not where.get("url", "").endswith("/favicon.ico"):
            # (Chromium fetches /favicon.ico once per context, at a time of its choosing: see
            # test_site_has_a_favicon.)
            self.problems.append(
                f"console error: {message.text} (at {where.get('url', '?')}:{where.get('lineNumber', '?')})"
            )

    def clear(self):
        self.requests.clear()
        self.problems.clear()
        self.pending.clear()


@pytest.fixture(scope="module")
def recorded_page(browser, site_url):
    """One page, reused for every load (faster than a page per test), and its recorder."""
    context = offline(browser.new_context(base_url=site_url, viewport={"width": 1280, "height": 900}))
    context.set_default_timeout(20_000)
    page = context.new_page()
    yield page, Recorder(page)
    context.close()


# The search page once more with a query: it then loads the index and fetches the result pages.
@pytest.mark.parametrize("path", published_pages() + ["search.html?q=vmap"])
def test_page_loads_cleanly(recorded_page, site_root, path):
    page, recorder = recorded_page
    assert (site_root / path.split("?")[0]).is_file(), f"{path} was not built"
    if page.url.startswith("http"):
        # Every load is a reader's first visit (the theme keeps its colour mode in localStorage).
        page.evaluate("localStorage.clear(); sessionStorage.clear()")
    recorder.clear()
    response = page.goto(path, wait_until="load")
    assert response is not None and response.ok, f"{path}: HTTP {response and response.status}"
    # Let late requests (fonts, scripts the theme loads on demand) and async errors happen.
    recorder.settle(page)
    external = sorted({u for u in recorder.requests if not is_local(u)})
    assert not external, f"{path} requests other hosts:\n" + "\n".join(external)
    assert not recorder.problems, f"{path}:\n" + "\n".join(recorder.problems)


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
