"""sphinx-book-theme's (1.4) and pydata-sphinx-theme's (0.20) internals: the page context key that
makes the download menu offer a notebook (``ipynb_source``), the priority of the theme's
``html-page-context`` handlers, and the names of the theme's HTML that the book's stylesheet,
scripts and browser tests select (:data:`NAMES`; ``tests/test_upstream.py`` finds each in the
installed theme and fails for a theme name used anywhere else)."""

from __future__ import annotations

#: A priority for an ``html-page-context`` handler that must run before sphinx-book-theme's (501),
#: which builds the header's download menu from the context.
BEFORE_HEADER_BUTTONS = 400
#: The class names, ids and CSS variables of the theme's HTML that the book's stylesheet, scripts
#: and browser tests select (some composed by the theme from a label: ``dropdown-{label}``,
#: ``btn-{label}``), with the cell and admonition classes the theme styles.
NAMES = (
    "admonition-title",
    "bd-article",
    "bd-header-article",
    "bd-links",
    "btn-fullscreen-button",
    "cell_input",
    "cell_output",
    "dropdown-download-buttons",
    "dropdown-menu",
    "left-prev",
    "page-toc",
    "prev-next-footer",
    "primary-toggle",
    "pst-color-accent",
    "pst-color-primary",
    "pst-color-text-muted",
    "pst-font-family-monospace",
    "pst-search-dialog",
    "pst-skip-link",
    "right-next",
    "search-button",
    "search-button__button",
    "search-results",
    "secondary-toggle",
    "theme-change-button",
    "theme-switch-button",
    "theme-switch-container",
)
#: The localStorage keys where pydata-sphinx-theme keeps the reader's colour mode.
MODE_KEYS = ("mode", "theme")


def offer_notebook(context: dict, filename: str) -> None:
    """Make the header's download menu offer ``_sources/<filename>`` as the page's notebook."""
    context["ipynb_source"] = filename
