"""Serve MathJax from the site itself: no page fetches a script from a CDN.

MathJax 3 comes from the pinned ``django-static-mathjax`` package (plain files, no dependencies).
Its single-file SVG build needs no web fonts; the menu is off, since it loads further components
on demand.
"""
from __future__ import annotations

import shutil
from importlib.util import find_spec
from pathlib import Path

SCRIPT = "mathjax/tex-svg.js"


def source() -> Path:
    package = find_spec("mathjax")
    if package is None or not package.submodule_search_locations:
        raise RuntimeError("django-static-mathjax is not installed: run `make html` to set up .venv")
    return Path(package.submodule_search_locations[0]) / "static" / "mathjax" / "es5" / "tex-svg.js"


def on_config_inited(app, config) -> None:
    config.mathjax_path = SCRIPT
    config.mathjax3_config = {"options": {"enableMenu": False}, "loader": {"load": []}}


def on_build_finished(app, exception) -> None:
    if exception is None and app.builder.format == "html":
        target = Path(app.outdir) / "_static" / SCRIPT
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.exists() or target.stat().st_size != source().stat().st_size:
            shutil.copyfile(source(), target)


def setup(app):
    source()  # fail early, with the set-up hint, if the files are missing
    app.connect("config-inited", on_config_inited)
    app.connect("build-finished", on_build_finished)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
