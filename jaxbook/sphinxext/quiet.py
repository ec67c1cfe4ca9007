"""Other extensions' routine lines kept off the terminal (``-v`` shows them, warnings always show);
the theme's compiled templates kept between builds."""

from __future__ import annotations

import logging
from pathlib import Path

from jaxbook.upstream import myst_parser, mystnb, sphinx as sphinx_seam

#: Routine INFO lines by logger: MyST's and MyST-NB's configuration dumps, the folder of MyST-NB's
#: execution cache (unused: outputs come from the store), each static template Sphinx renders.
QUIET = myst_parser.ROUTINE_LINES | mystnb.ROUTINE_LINES | sphinx_seam.ROUTINE_LINES


def quiet_filter(texts: tuple[str, ...]):
    """A logging filter that drops the INFO records whose message contains one of ``texts``."""

    def keep(record) -> bool:
        return record.levelno > logging.INFO or not any(t in str(record.msg) for t in texts)

    return keep


def quiet_libraries() -> None:
    """Give the root logger, if it has none, a WARNING handler, so that a library's
    ``logging.basicConfig(level=INFO)`` changes nothing (docs/upstream.md, accessible-pygments 1)."""
    root = logging.getLogger()
    if not root.handlers:
        handler = logging.StreamHandler()
        handler.setLevel(logging.WARNING)
        root.addHandler(handler)


def compiled_templates(doctreedir: str | Path) -> Path:
    """Where a build keeps the theme's compiled templates: one folder per Jinja version."""
    import jinja2

    return Path(doctreedir) / f"jinja-{jinja2.__version__}"


def on_builder_inited(app) -> None:
    """Give the theme's templates Jinja's bytecode cache (used only while a template is unchanged)."""
    import jinja2

    environment = sphinx_seam.template_environment(app)
    if environment is None:
        return  # a builder without Jinja templates
    folder = compiled_templates(app.doctreedir)
    folder.mkdir(parents=True, exist_ok=True)
    environment.bytecode_cache = jinja2.FileSystemBytecodeCache(str(folder))


def setup(app):
    quiet_libraries()
    if app.verbosity == 0:
        for name, texts in QUIET.items():
            logging.getLogger(name).addFilter(quiet_filter(texts))
    app.connect("builder-inited", on_builder_inited)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
