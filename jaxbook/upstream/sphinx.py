"""Sphinx's internals (9.1): the set of pages read again on every build (``env.reread_always``),
the image size reader (``sphinx.util.images.get_image_size``), the HTML builder's Jinja environment
(``builder.templates.environment``) and the logger of the templates it renders."""

from __future__ import annotations

from pathlib import Path

#: Its routine INFO lines, by logger: each static template rendered.
ROUTINE_LINES = {"sphinx.sphinx.util.fileutil": ("Writing evaluated template result",)}


def template_environment(app):
    """The Jinja environment of the builder's templates (None for a builder without them)."""
    return getattr(getattr(app.builder, "templates", None), "environment", None)


def forget_rereads(env) -> None:
    """Read no page again on the next build only because its toctree names a page left out of this
    one (Sphinx notes such pages with ``env.note_reread``)."""
    env.reread_always.clear()


def image_size(path: Path) -> tuple[int, int] | None:
    """An image's size in pixels, None if it cannot be read."""
    from sphinx.util.images import get_image_size

    return get_image_size(path)
