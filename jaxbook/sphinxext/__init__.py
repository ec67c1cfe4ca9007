"""The book's Sphinx extension: snippet cells that cannot lie, as small single-purpose extensions.

- :mod:`.cells`    -- every code cell loads a valid snippet; the snippet's files become the page's dependencies.
- :mod:`.mystnb`   -- MyST-NB takes each page's outputs from the execution store (:mod:`jaxbook.upstream.mystnb`).
- :mod:`.findings` -- each failing cell at its line, the build's list of them, the report files.
- :mod:`.stamp`    -- each cell as a reader reads it; under each page's title, its notebook and the environment of its outputs.
- :mod:`.getcode`  -- ``{get-the-code}``: how a practice page's reader gets the code (the repository, or the notebook).
- :mod:`.chip`     -- ``{chip}``, ``{chip-stamp}``, ``{chip-table}``: a chip's committed measurements (docs/records/).
- :mod:`.quiet`    -- other extensions' routine lines kept off the terminal; compiled templates kept.
"""

from __future__ import annotations

import os
from pathlib import Path

from docutils import nodes

from jaxbook import fingerprint
from jaxbook.upstream import sphinx as sphinx_seam

PARTS = ("cells", "mystnb", "findings", "stamp", "getcode", "chip", "quiet")


def code_paragraph(text: str, classes: list[str]) -> nodes.paragraph:
    """A paragraph of ``text`` (reader's words written by the extension) in which `backquoted`
    parts are inline code."""
    paragraph = nodes.paragraph(classes=classes)
    for number, part in enumerate(text.split("`")):
        if part:
            paragraph += nodes.literal(part, part) if number % 2 else nodes.Text(part)
    return paragraph


def on_config_inited(app, config) -> None:
    """Make the Sphinx source folder the book's root (:func:`jaxbook.book_root`)."""
    os.environ["JAXBOOK_ROOT"] = str(Path(app.srcdir).resolve())


def on_env_updated(app, env) -> list[str]:
    """In a preview (``make page``), read a page again only when it changed, not each time its
    toctree names a page left out."""
    if app.config.jaxbook_preview:
        sphinx_seam.forget_rereads(env)
    return []


def setup(app):
    # When the store's environment changes, every page is executed again and must be rendered again;
    # when the code of the kernel or of any module of the package Sphinx loads (each extension of
    # the package in conf.py and what it imports) changes, every page is read and written again.
    app.add_config_value("jaxbook_environment", fingerprint.environment(), "env")
    machinery = fingerprint.machinery(fingerprint.extension_entries(app.config.extensions))
    app.add_config_value("jaxbook_machinery", machinery, "env")
    app.add_config_value("jaxbook_expected_outputs", True, "env")
    app.add_config_value("jaxbook_preview", False, "env", types=(bool, int))
    app.connect("config-inited", on_config_inited, priority=100)
    app.connect("env-updated", on_env_updated)
    for part in PARTS:
        app.setup_extension(f"{__name__}.{part}")
    app.add_css_file("jaxbook.css")
    app.add_js_file("search-summary.js")
    return {
        "version": "1",
        "parallel_read_safe": True,
        "parallel_write_safe": True,
        "env_version": 1,  # the form of what it keeps in the environment (findings)
    }
