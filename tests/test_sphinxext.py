"""The one use of MyST-NB's internals (jaxbook.sphinxext.install_client): its assumptions hold for
the installed MyST-NB, and a MyST-NB that breaks one of them fails the build with a clear error
instead of executing the pages itself."""

from __future__ import annotations

import logging
import types

import myst_nb.sphinx_
import nbformat
import pytest
from myst_nb.core.config import NbParserConfig
from myst_nb.core.execute import NotebookClientBase

from jaxbook import sphinxext


def test_the_installed_myst_nb_works_as_install_client_assumes():
    sphinxext.check_myst_nb(myst_nb.sphinx_, NotebookClientBase)


def fake_module(**changes) -> types.SimpleNamespace:
    """``myst_nb.sphinx_`` as far as check_myst_nb reads it, with ``changes``."""
    return types.SimpleNamespace(
        __name__="myst_nb.sphinx_",
        **{"create_client": myst_nb.sphinx_.create_client, "Parser": myst_nb.sphinx_.Parser, **changes},
    )


class Parser:
    def parse(self, inputstring, document):
        return open_client(inputstring)  # not the module's create_client


def open_client(*args):
    return args


class Client(NotebookClientBase):
    def __enter__(self):
        return self  # does not call start_client


@pytest.mark.parametrize(
    ("module", "client_base", "message"),
    [
        (fake_module(create_client=None), NotebookClientBase, "has no function create_client"),
        (fake_module(create_client=lambda notebook, path, config, logger: None), NotebookClientBase, "takes"),
        (fake_module(Parser=Parser), NotebookClientBase, "Parser.parse no longer opens its client"),
        (fake_module(), Client, "Client.__enter__ no longer calls start_client"),
    ],
    ids=["no create_client", "other parameters", "parse opens another client", "enter skips start_client"],
)
def test_a_myst_nb_that_changed_fails_with_what_changed(module, client_base, message):
    with pytest.raises(RuntimeError, match="MyST-NB changed: .*" + message.replace(".", r"\.")):
        sphinxext.check_myst_nb(module, client_base)


def test_pages_with_loaded_cells_get_the_store_client_and_others_myst_nbs_own(monkeypatch):
    monkeypatch.setattr(myst_nb.sphinx_, "create_client", myst_nb.sphinx_.create_client)  # restored after
    sphinxext.install_client()
    sphinxext.install_client()  # idempotent: wraps once
    create_client = myst_nb.sphinx_.create_client
    assert create_client.jaxbook

    def notebook(metadata):
        return nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("", metadata=metadata)])

    config, logger = NbParserConfig(execution_mode="off"), logging.getLogger("test")
    loaded = create_client(notebook({"load": "../snippets/a.py"}), "guide/a.md", config, logger)
    assert type(loaded).__name__ == "StoreClient" and isinstance(loaded, NotebookClientBase)
    plain = create_client(notebook({}), "guide/a.md", config, logger)
    assert type(plain).__name__ != "StoreClient"


@pytest.mark.inputs()
def test_the_build_renders_every_page_again_when_the_store_executes_them_again(monkeypatch):
    """The store's environment is a configuration value that rebuilds Sphinx's environment: a new
    lock, JAX setting or processor executes every page again (tests/test_store.py) and renders
    it again (tests/test_rebuild.py), instead of leaving the last build's outputs published."""
    from unittest import mock

    from jaxbook import fingerprint

    app = mock.MagicMock(verbosity=1)
    monkeypatch.setattr(sphinxext, "quiet_libraries", lambda: None)
    sphinxext.setup(app)
    declared = {c.args[0]: c.args[1:] for c in app.add_config_value.call_args_list}
    assert declared["jaxbook_environment"] == (fingerprint.environment(), "env")
