"""Helpers shared by the browser tests: which pages the book publishes, and in which order."""

from __future__ import annotations

import json
import os
from pathlib import Path
from urllib.parse import urlsplit

from jaxbook import ROOT, layout, pages
from jaxbook.upstream import theme

#: Where the strict build writes the site (the `built_site` fixture returns this folder).
HTML = ROOT / layout.HTML
#: Screenshots for humans to look at (not compared with anything).
SCREENSHOTS = ROOT / layout.BUILD / "screenshots"
#: The page weights measured by test_weight.py (a file per page), printed at the end of the session.
WEIGHT_REPORT = ROOT / layout.BUILD / "page-weight"
#: What one page may load, in bytes before compression (test_weight.py).
BUDGET = 600 * 1000
#: The hosts the site is served from: the only hosts the browser reaches (:data:`CHROMIUM_ARGS`).
LOCAL_HOSTS = ("127.0.0.1", "localhost")
#: The system Chromium (tools/install_browser.sh); JAXBOOK_CHROMIUM=/path overrides it.
CHROMIUM = Path(os.environ.get("JAXBOOK_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    # Any other host or IP address fails to resolve at once, in every context (routes that abort
    # such requests would intercept every request, and interception turns the HTTP cache off).
    "--host-resolver-rules=MAP * ~NOTFOUND, " + ", ".join(f"EXCLUDE {host}" for host in LOCAL_HOSTS),
]
DESKTOP = {"width": 1280, "height": 900}
#: A small phone (desktop emulation, so the layout viewport cannot grow to fit content that is
#: too wide).
PHONE = {"width": 375, "height": 812}


def chosen_mode_js(mode: str) -> str:
    """Script that stores colour mode ``mode`` as a reader's choice: the theme reads it from
    localStorage when a page loads."""
    return "; ".join(f"localStorage.setItem('{key}', '{mode}')" for key in theme.MODE_KEYS)


def published_pages() -> list[str]:
    """Every page a reader can open (jaxbook.pages.published_pages)."""
    return pages.published_pages(ROOT)


def reading_order(root: str = "index") -> list[str]:
    """The order in which Sphinx's previous/next links walk the book: a depth-first walk of the
    toctrees from the landing page (entries without a source are skipped, as Sphinx does)."""
    order, seen = [], set()

    def visit(source: Path) -> None:
        if source not in seen:
            seen.add(source)
            order.append(source.relative_to(ROOT).with_suffix("").as_posix())
            for child in pages.read(source).children():
                visit(child)

    visit(ROOT / f"{root}.md")
    return order


#: The step pages (the guide) as index.md's toctrees order them, e.g. "guide/grad".
STEPS = [page for page in reading_order() if page.startswith("guide/")]


def is_local(url: str) -> bool:
    """True for URLs that never leave the machine: our server, data: and blob: URLs."""
    parts = urlsplit(url)
    if parts.scheme in ("data", "blob", "about"):
        return True
    return parts.scheme in ("http", "https", "ws", "wss") and parts.hostname in LOCAL_HOSTS


def print_page_weights(terminalreporter, started: float) -> None:
    """Print the heaviest page and the heaviest step page measured in this session (if any)."""
    files = [f for f in WEIGHT_REPORT.glob("*.json") if f.stat().st_mtime >= started]
    measured = [json.loads(f.read_text(encoding="utf-8")) for f in files]
    steps = [p for p in measured if p["page"] in {f"{s}.html" for s in STEPS}]
    for label, found in (("heaviest", measured), ("heaviest step", steps)):
        if found:
            page = max(found, key=lambda p: p["bytes"])
            terminalreporter.write_line(
                f"page weight, {label} page: {page['page']} {page['bytes'] / 1000:.0f} KB "
                f"in {page['requests']} requests (budget {BUDGET / 1000:.0f} KB)"
            )


def new_context(
    browser, site_url, viewport=DESKTOP, timeout_ms: int | None = 15_000, mode: str | None = None
):
    """A fresh browser context for the site (own storage and cache) that reaches no host but our
    server (CHROMIUM_ARGS); ``timeout_ms``: its actions' time limit (None: Playwright's);
    ``mode``: the colour mode a reader chose, if any."""
    ctx = browser.new_context(base_url=site_url, viewport=viewport)
    if timeout_ms is not None:
        ctx.set_default_timeout(timeout_ms)
    if mode is not None:
        ctx.add_init_script(chosen_mode_js(mode))
    return ctx
