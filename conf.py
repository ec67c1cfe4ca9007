"""Sphinx configuration of the executable JAX book. Build logic lives in jaxbook/sphinxext/."""

import os
import sys
from pathlib import Path
from urllib.parse import urlparse

sys.path.insert(0, str(Path(__file__).parent.resolve()))  # the jaxbook package

from jaxbook.layout import BUILD  # noqa: E402
from jaxbook.pages import MYST_EXTENSIONS, PAGE_PATTERNS  # noqa: E402

project = "Learn JAX by Running It"
author = "The JAX book contributors"
copyright = "2026, the JAX book contributors"

extensions = [
    "myst_nb",
    "sphinx_design",
    "sphinx_copybutton",
    "notfound.extension",
    "sphinxext.opengraph",
    "jaxbook.sphinxext",
    "jaxbook.removed",
    "jaxbook.mathml",
    "jaxbook.a11y",
    "jaxbook.downloads",
    "jaxbook.seo",
    "jaxbook.publish",
]
include_patterns = ["404.md", *PAGE_PATTERNS]
exclude_patterns = [str(BUILD), ".venv", "**/README.md"]

# Pages are not executed by MyST-NB: their outputs come from the execution store (jaxbook/sphinxext/mystnb.py),
# whose client MyST-NB opens in any mode; "off" keeps MyST-NB from executing a page itself should it stop.
nb_execution_mode = "off"
nb_merge_streams = True
nb_render_error_lexer = "pytb"  # the kernel shows plain Python tracebacks (jaxbook.snippet)
myst_enable_extensions = list(MYST_EXTENSIONS)
myst_heading_anchors = 3

html_theme = "sphinx_book_theme"
html_title = project
templates_path = ["_templates"]
html_static_path = ["_static"]
html_favicon = "_static/favicon.svg"
# Keyboard users keep the focus on sphinx-book-theme's header buttons (docs/upstream.md).
html_js_files = ["keyboard.js"]
# The theme's Font Awesome script redraws the icons its icon font already draws (docs/upstream.md,
# pydata-sphinx-theme 3): the publishing stage leaves it out (jaxbook/publish.py).
jaxbook_publish_unused_scripts = ["_static/scripts/fontawesome.js"]
# Bootstrap's script composes its tooltips' classes (bs-tooltip-auto): the publishing stage keeps them.
jaxbook_publish_composed_classes = ["bs-"]
# pydata-sphinx-theme 0.20 logs a console error on a first visit unless a default mode is set.
html_context = {"default_mode": "auto"}
html_theme_options = {
    "show_navbar_depth": 1,
    "show_toc_level": 2,
    "use_download_button": True,
    "use_source_button": False,
}
html_last_updated_fmt = None
# The book has no index entries: no empty "Index" page (and no time spent writing one).
html_use_index = False
# The site's address, for canonical links, og:url, sitemap.xml and the 404 page's links: Read the
# Docs gives it to its builds; for another host, JAXBOOK_BASE_URL (README: Publishing).
html_baseurl = os.environ.get("READTHEDOCS_CANONICAL_URL") or os.environ.get("JAXBOOK_BASE_URL", "")
# Where a practice page's reader clones the code ({get-the-code}, jaxbook/sphinxext/getcode.py): Read
# the Docs gives its builds the repository's address; another host sets JAXBOOK_REPOSITORY_URL;
# without one, the pages send readers to the notebook download.
jaxbook_repository = os.environ.get("READTHEDOCS_GIT_CLONE_URL") or os.environ.get(
    "JAXBOOK_REPOSITORY_URL", ""
)
# Open Graph tags (sphinxext-opengraph); the description is the book's (jaxbook/seo.py); no
# generated preview images.
ogp_site_url = html_baseurl
ogp_type = "article"
ogp_social_cards = {"enable": False}
notfound_urls_prefix = urlparse(html_baseurl).path or "/"
copybutton_exclude = ".linenos, .gp, .go"
