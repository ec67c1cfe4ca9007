"""sphinx-book-theme's (1.4) and pydata-sphinx-theme's (0.20) internals: the page context key that
makes the download menu offer a notebook (``ipynb_source``), the priority of the theme's
``html-page-context`` handlers, and the names of the theme's HTML that the book's stylesheet,
scripts and browser tests select (:data:`NAMES`; ``tests/test_upstream.py`` finds each in the
installed theme and fails for a theme name used anywhere else)."""

from __future__ import annotations

#: A priority for an ``html-page-context`` handler that must run before sphinx-book-theme's (501),
#: which builds the header's download menu from the context.
BEFORE_HEADER_BUTTONS = 400
#: The theme's class names, ids, CSS variables and localStorage keys the book relies on: the
#: article and its header (the search summary drops the header), the sidebar's links, the skip
#: link, the search dialog, the colours and fonts jaxbook.css reuses, the stored colour mode.
NAMES = (
    "bd-article",
    "bd-header-article",
    "bd-links",
    "prev-next-footer",
    "pst-skip-link",
    "pst-search-dialog",
    "pst-color-text-muted",
    "pst-color-primary",
    "pst-color-accent",
    "pst-font-family-monospace",
)
#: The localStorage keys where pydata-sphinx-theme keeps the reader's colour mode.
MODE_KEYS = ("mode", "theme")


def offer_notebook(context: dict, filename: str) -> None:
    """Make the header's download menu offer ``_sources/<filename>`` as the page's notebook."""
    context["ipynb_source"] = filename
