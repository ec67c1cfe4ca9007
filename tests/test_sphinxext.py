"""MyST-NB renders pages with snippet cells from the store, or the build stops (the MyST-NB seam's
contract is tests/test_upstream.py's)."""

from __future__ import annotations

import types

import pytest
from docutils import nodes

from jaxbook.sphinxext import mystnb

pytestmark = pytest.mark.inputs()


def test_a_page_rendered_without_the_store_client_fails_the_build():
    """A MyST-NB that opens another client would execute the pages itself: the build stops."""
    doctree = nodes.document(None, None)
    doctree += nodes.container(nb_element="cell_code", cell_metadata={"load": "../snippets/a.py"})
    app = types.SimpleNamespace(env=types.SimpleNamespace(docname="guide/never-filled"))
    with pytest.raises(Exception, match="MyST-NB changed: Parser.parse no longer opens its client"):
        mystnb.on_doctree_read(app, doctree)
    mystnb._filled.add("guide/never-filled")
    mystnb.on_doctree_read(app, doctree)
