"""Fixtures of the browser tests: the built site served on 127.0.0.1, and a headless Chromium
(Debian's, through Playwright: `tools/install_browser.sh`; JAXBOOK_CHROMIUM=/path for another).
Without Chromium the browser tests are skipped, or fail when the environment variable CI is set.
JAXBOOK_SITE_PREBUILT=1 tests the existing `_build/html` without the strict build (for developing
these tests: the results then say nothing about the current sources)."""

from __future__ import annotations

import functools
import json
import os
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from jaxbook import ROOT
from tests.browser.support import CHROMIUM, CHROMIUM_ARGS, HTML, new_context

AXE_JS = ROOT / "node_modules" / "axe-core" / "axe.min.js"


def pytest_configure(config):
    config.addinivalue_line("markers", "browser: drives a headless Chromium against the built site")


@pytest.fixture(scope="session")
def site_root(request) -> Path:
    """The built HTML folder: the strict build (`built_site`), or with JAXBOOK_SITE_PREBUILT=1
    the existing `_build/html` without building."""
    if os.environ.get("JAXBOOK_SITE_PREBUILT") == "1":
        assert (HTML / "index.html").is_file(), f"JAXBOOK_SITE_PREBUILT=1 but {HTML} holds no built site"
        return HTML
    return request.getfixturevalue("built_site")


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format, *args):
        pass  # not every request on stderr


class QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        pass  # the browser closing a connection early is not an error of the site


@pytest.fixture(scope="session")
def site_url(site_root) -> str:
    """Base URL (ending in /) of the built site, served from a thread on a free local port."""
    handler = functools.partial(QuietHandler, directory=str(site_root))
    server = QuietServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, name="site-server", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@pytest.fixture(scope="session")
def chromium() -> Path:
    """The system Chromium; skips (fails under CI) when it is not installed."""
    if not (CHROMIUM.is_file() and os.access(CHROMIUM, os.X_OK)):
        message = (
            f"{CHROMIUM} is missing: the browser tests need Debian's chromium; "
            "install it with `bash tools/install_browser.sh` (as root), "
            "or set JAXBOOK_CHROMIUM to a Chromium binary"
        )
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return CHROMIUM


@pytest.fixture(scope="session")
def browser(chromium):
    """One headless Chromium for the whole session."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(chromium), headless=True, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def context(browser, site_url):
    """A fresh browser context (1280x900), for one test."""
    with new_context(browser, site_url) as ctx:
        yield ctx


@pytest.fixture
def page(context):
    return context.new_page()


@pytest.fixture(scope="session")
def axe_source() -> str:
    """axe-core's script, at the version package-lock.json pins."""
    lock = json.loads((ROOT / "package-lock.json").read_text(encoding="utf-8"))
    pinned = lock["packages"]["node_modules/axe-core"]["version"]
    if not AXE_JS.is_file():
        pytest.fail(
            f"{AXE_JS.relative_to(ROOT)} is missing: run `npm ci --ignore-scripts` "
            "(make test does) to install axe-core from package-lock.json"
        )
    installed = json.loads((AXE_JS.parent / "package.json").read_text(encoding="utf-8"))["version"]
    assert installed == pinned, (
        f"node_modules has axe-core {installed}, package-lock.json pins "
        f"{pinned}: run `npm ci --ignore-scripts`"
    )
    return AXE_JS.read_text(encoding="utf-8")


@pytest.fixture(scope="session")
def visitor(browser, site_url, axe_source):
    """The per-page visits of this worker (tests/browser/survey.py)."""
    from tests.browser.survey import Visitor

    visitor = Visitor(browser, site_url, axe_source)
    yield visitor
    visitor.close()
