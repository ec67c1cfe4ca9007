"""One visit of each page for every per-page browser test: it loads cleanly (test_pages.py), it
stays within the weight budget (test_weight.py) and axe-core finds no WCAG violation in light and
dark mode (test_accessibility.py). A :class:`Visitor` loads a page once in light mode as a first
visit (no storage, the cache off: every file downloaded, axe-core injected), records what the
three files need, and once more in dark mode for axe; a page's tests share one xdist worker
(:func:`per_page`), where its visit is kept."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from tests.browser.support import chosen_mode_js, new_context

AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
MODES = ["light", "dark"]

RUN_AXE = """async (tags) => {
  await document.fonts.ready;
  const result = await axe.run(document, {runOnly: {type: "tag", values: tags},
                                          resultTypes: ["violations"]});
  return result.violations.map((v) => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map((n) => ({target: n.target.join(" "), html: n.html,
                                summary: n.failureSummary})),
  }));
}"""


def per_page(paths: list[str], *modes: str) -> list:
    """Parameters of a per-page test, each in the xdist group of its page (so a page's tests
    share one visit): ``path``, or ``(mode, path)`` for each of ``modes``."""
    group = lambda path: pytest.mark.xdist_group(f"page:{path}")  # noqa: E731
    if not modes:
        return [pytest.param(path, marks=group(path), id=path) for path in paths]
    return [
        pytest.param(mode, path, marks=group(path), id=f"{mode}-{path}") for mode in modes for path in paths
    ]


class Recorder:
    """Collects, per page load, everything that a clean page must not produce."""

    def __init__(self, page):
        self.requests, self.problems, self.pending = [], [], set()
        self.responses, self.from_cache = [], []
        page.on("request", self.on_request)
        page.on("requestfinished", self.on_finished)
        page.on("requestfailed", self.on_failed)
        page.on("response", self.on_response)
        page.on("console", self.on_console)
        page.on("pageerror", self.on_page_error)

    def on_request(self, request):
        self.requests.append(request.url)
        self.pending.add(request)

    def on_finished(self, request):
        self.pending.discard(request)

    def on_failed(self, request):
        self.pending.discard(request)
        self.problems.append(f"request failed ({request.failure}): {request.url}")

    def on_page_error(self, error):
        self.problems.append(f"uncaught exception: {error}")

    def on_response(self, response):
        self.responses.append(response)
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

    def on_served_from_cache(self, event):
        self.from_cache.append(event)

    def on_devtools_response(self, event):
        if event["response"].get("fromDiskCache"):
            self.from_cache.append(event)

    def settle(self, page, quiet_ms=200, timeout_ms=10_000):
        """Wait until no request has been in flight for `quiet_ms`: late requests (fonts,
        scripts the theme loads on demand) and async errors (like Playwright's "networkidle",
        which waits 500 ms: too slow for ~60 pages)."""
        quiet = waited = 0
        while quiet < quiet_ms and waited < timeout_ms:
            page.wait_for_timeout(50)
            waited += 50
            quiet = quiet + 50 if not self.pending else 0
        assert not self.pending, "requests still pending: " + ", ".join(r.url for r in self.pending)

    def clear(self):
        for found in (self.requests, self.problems, self.responses, self.from_cache):
            found.clear()
        self.pending.clear()


@dataclass
class Visit:
    """What one light-mode first visit of a page showed, and per mode its theme and axe-core's findings."""

    status: int | None
    requests: list[str]
    problems: list[str]
    sizes: dict[str, int]
    from_cache: list
    theme: dict[str, str]
    violations: dict[str, list[dict]] = field(default_factory=dict)


class Visitor:
    """Visits pages in one browser context, as a reader's first visit (see the module)."""

    def __init__(self, browser, site_url, axe_source: str):
        self.context = new_context(browser, site_url, timeout_ms=30_000)
        self.context.add_init_script(axe_source)
        self.page = self.context.new_page()
        self.recorder = Recorder(self.page)
        devtools = self.context.new_cdp_session(self.page)
        devtools.send("Network.enable")
        devtools.send("Network.setCacheDisabled", {"cacheDisabled": True})
        devtools.on("Network.requestServedFromCache", self.recorder.on_served_from_cache)
        devtools.on("Network.responseReceived", self.recorder.on_devtools_response)
        self.visits: dict[str, Visit] = {}

    def close(self):
        self.context.close()

    def _goto(self, path: str):
        response = self.page.goto(path, wait_until="load")
        self.page.evaluate("document.fonts.ready.then(() => true)")
        if "?q=" in path:  # the search page loads its index, then lists the results
            self.page.wait_for_selector("#search-results ul.search li a")
        return response

    def first_visit(self, path: str) -> Visit:
        """Load ``path`` in light mode with nothing stored and nothing cached."""
        page, recorder = self.page, self.recorder
        recorder.settle(page)  # what the previous page still fetches is not this page's
        if page.url.startswith("http"):
            page.evaluate("localStorage.clear(); sessionStorage.clear()")
        recorder.clear()
        response = self._goto(path)
        recorder.settle(page)
        sizes = {}
        for answer in recorder.responses:
            try:
                sizes[answer.url.split("?")[0]] = len(answer.body())
            except Exception:  # redirects and aborted requests have no body
                pass
        return Visit(
            status=response.status if response is not None else None,
            requests=list(recorder.requests),
            problems=list(recorder.problems),
            sizes=sizes,
            from_cache=list(recorder.from_cache),
            theme={"light": page.evaluate("document.documentElement.dataset.theme")},
        )

    def visit(self, path: str, mode: str = "light") -> Visit:
        """The page's visit (made once), with axe-core's findings in ``mode``."""
        if path not in self.visits:
            self.visits[path] = self.first_visit(path)
            self.visits[path].violations["light"] = self.page.evaluate(RUN_AXE, AXE_TAGS)
        visit = self.visits[path]
        if mode not in visit.violations:
            # As a reader who chose the mode: the theme reads it from localStorage at load.
            self.page.evaluate(chosen_mode_js(mode))
            self._goto(path)
            visit.theme[mode] = self.page.evaluate("document.documentElement.dataset.theme")
            visit.violations[mode] = self.page.evaluate(RUN_AXE, AXE_TAGS)
        return visit
