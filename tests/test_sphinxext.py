"""The one use of MyST-NB's internals (jaxbook/sphinxext/mystnb.py): pages with snippet cells get
their outputs from the store, with the installed MyST-NB and with its main branch's signature."""

from __future__ import annotations

import importlib
import logging
import types

import myst_nb.sphinx_
import nbformat
import pytest
from myst_nb.core.config import NbParserConfig
from myst_nb.core.execute import NotebookClientBase

from jaxbook.sphinxext import mystnb
from tests.fixtures import myst_nb_main

pytestmark = pytest.mark.inputs()
CONFIG, LOGGER = NbParserConfig(execution_mode="off"), logging.getLogger("test")


def notebook(metadata):
    return nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("", metadata=metadata)])


def test_the_installed_myst_nb_gives_pages_with_snippets_the_store_client(monkeypatch):
    monkeypatch.setattr(myst_nb.sphinx_, "create_client", myst_nb.sphinx_.create_client)  # restored after
    mystnb.install_client()
    mystnb.install_client()  # idempotent: wraps once
    create_client = myst_nb.sphinx_.create_client
    loaded = create_client(notebook({"load": "../snippets/a.py"}), "guide/a.md", CONFIG, LOGGER)
    assert type(loaded).__name__ == "StoreClient" and isinstance(loaded, NotebookClientBase)
    plain = create_client(notebook({}), "guide/a.md", CONFIG, LOGGER)
    assert type(plain).__name__ != "StoreClient"


def test_myst_nb_main_branch_calls_are_forwarded_whole():
    """MyST-NB's main branch passes ``kernel_manager_class=`` to ``create_client``."""
    module = importlib.reload(myst_nb_main)
    mystnb.install_client(module)
    loaded = module.parse(notebook({"load": "../snippets/a.py"}), "guide/a.md", CONFIG, LOGGER, {}, object)
    assert type(loaded).__name__ == "StoreClient" and module.calls == []
    assert module.parse(notebook({}), "guide/a.md", CONFIG, LOGGER, {"x": 1}, object) == "myst-nb's client"
    assert module.calls == [{"read_fmt": {"x": 1}, "kernel_manager_class": object}]


@pytest.mark.parametrize(
    ("create_client", "message"),
    [(None, "has no function create_client"), (lambda notebook, path, config, logger: None, "begin")],
    ids=["no create_client", "other parameters"],
)
def test_a_myst_nb_that_moved_create_client_fails_with_what_changed(create_client, message):
    module = types.SimpleNamespace(__name__="myst_nb.sphinx_", create_client=create_client)
    with pytest.raises(RuntimeError, match=f"MyST-NB changed: .*{message}"):
        mystnb.install_client(module)


def test_a_page_rendered_without_the_store_client_fails_the_build():
    """A MyST-NB that opens another client would execute the pages itself: the build stops."""
    from docutils import nodes

    doctree = nodes.document(None, None)
    doctree += nodes.container(nb_element="cell_code", cell_metadata={"load": "../snippets/a.py"})
    app = types.SimpleNamespace(env=types.SimpleNamespace(docname="guide/never-filled"))
    with pytest.raises(Exception, match="MyST-NB changed: Parser.parse no longer opens its client"):
        mystnb.on_doctree_read(app, doctree)
    mystnb._filled.add("guide/never-filled")
    mystnb.on_doctree_read(app, doctree)
