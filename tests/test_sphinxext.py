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


#: A page's extension for :func:`test_every_builder_writes_a_platform_note`: one note on every page.
NOTE_EXTENSION = """
from jaxbook.sphinxext import stamp

def add_note(app, doctree):
    doctree += stamp.platform_note("On a TPU, this output differs.", "It computes in `bfloat16` passes.")

def setup(app):
    app.setup_extension("jaxbook.sphinxext.stamp")
    app.connect("doctree-read", add_note)
"""


@pytest.mark.parametrize("builder", ["text", "latex", "man", "texinfo", "html"])
def test_every_builder_writes_a_platform_note(tmp_path, monkeypatch, builder):
    """A platform note is in every builder's doctree: each writes it (a PDF or text build of the
    book does not stop at an unknown node), with its summary and its reason."""
    from sphinx.cmd.build import build_main

    (tmp_path / "note_extension.py").write_text(NOTE_EXTENSION, encoding="utf-8")
    (tmp_path / "conf.py").write_text(
        "extensions = ['note_extension']\nproject = 'notes'\n",
        encoding="utf-8",
    )
    (tmp_path / "index.rst").write_text("Notes\n=====\n\nA page.\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    out = tmp_path / "out"
    assert build_main(["-q", "-W", "-b", builder, str(tmp_path), str(out)]) == 0
    suffixes = {".txt", ".tex", ".1", ".texi", ".html"}
    written = "".join(p.read_text(encoding="utf-8") for p in out.rglob("*") if p.suffix in suffixes)
    assert "On a TPU, this output differs." in written and "passes." in written
