"""Sphinx's internals (9.1): the set of pages read again on every build (``env.reread_always``)
and the image size reader (``sphinx.util.images.get_image_size``)."""

from __future__ import annotations

from pathlib import Path


def forget_rereads(env) -> None:
    """Read no page again on the next build only because its toctree names a page left out of this
    one (Sphinx notes such pages with ``env.note_reread``)."""
    env.reread_always.clear()


def image_size(path: Path) -> tuple[int, int] | None:
    """An image's size in pixels, None if it cannot be read."""
    from sphinx.util.images import get_image_size

    return get_image_size(path)
