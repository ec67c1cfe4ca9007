"""sphinxext-opengraph's (0.13) internals: its ``html-page-context`` handler runs at Sphinx's
default priority (500) and takes a page's ``og:description`` from the page's metadata."""

from __future__ import annotations

#: A priority for an ``html-page-context`` handler that must run before sphinxext-opengraph's.
BEFORE_TAGS = 400


def describe(context: dict, summary: str) -> None:
    """Make sphinxext-opengraph write ``summary`` (HTML-escaped) as the page's ``og:description``."""
    context["meta"] = {**(context.get("meta") or {}), "og:description": summary}
