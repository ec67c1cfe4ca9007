"""MyST-NB's internals (1.4): the client factory ``myst_nb.sphinx_.create_client``, its record of
the pages it executed (``NbMetadataCollector``, ``env.mystnb_config``) and the attributes of its
cell nodes (``nb_element``, ``cell_metadata``)."""

from __future__ import annotations

import inspect
import time
from pathlib import Path

#: The leading parameters of MyST-NB's ``create_client`` that the wrapper reads.
CREATE_CLIENT_PARAMETERS = ("notebook", "source", "nb_config", "logger")
CHANGED = (
    "MyST-NB changed: {}; jaxbook/upstream/mystnb.py relies on it to give the pages their "
    "outputs from the execution store (review it; docs/upstream.md, 'The seams', tracks the fix)"
)
#: Its routine INFO lines, by logger (Sphinx's name for it): the configuration dump, the folder of
#: its execution cache.
ROUTINE_LINES = {"sphinx.myst_nb.sphinx_ext": ("myst-nb v%s:", "Using jupyter-cache at:")}
#: A page rendered without the store's client: MyST-NB executed it itself.
NOT_FILLED = CHANGED.format("Parser.parse no longer opens its client with create_client")


def wrap_create_client(fill, module=None) -> None:
    """Make MyST-NB open, for a notebook with snippet cells (a ``load`` option), a client that
    executes nothing but calls ``fill(notebook, path, cell_line)``, which gives the cells their
    outputs and returns (seconds, succeeded) for MyST-NB's record of executed pages, or None;
    other notebooks get MyST-NB's own client. Idempotent; RuntimeError if ``create_client`` moved."""
    from myst_nb.core.execute import NotebookClientBase

    if module is None:
        import myst_nb.sphinx_ as module
    original = getattr(module, "create_client", None)
    if getattr(original, "jaxbook", False):
        return
    if not callable(original):
        raise RuntimeError(CHANGED.format(f"{module.__name__} has no function create_client"))
    leading = tuple(inspect.signature(original).parameters)[: len(CREATE_CLIENT_PARAMETERS)]
    if leading != CREATE_CLIENT_PARAMETERS:
        raise RuntimeError(
            CHANGED.format(f"create_client's parameters begin {leading}, not {CREATE_CLIENT_PARAMETERS}")
        )

    class StoreClient(NotebookClientBase):
        def start_client(self):
            ran = fill(self.notebook, self.path, self.cell_line)
            if ran is not None:  # what executed_notebook reads
                seconds, succeeded = ran
                self.exec_metadata = {
                    "mtime": time.time(),
                    "runtime": seconds,
                    "method": "jaxbook store",
                    "succeeded": succeeded,
                    "error": None,
                    "traceback": None,
                }

    def create_client(notebook, source, nb_config, logger, *args, **kwargs):
        if any(cell.get("metadata", {}).get("load") for cell in notebook.cells):
            return StoreClient(notebook, Path(source), nb_config, logger)
        return original(notebook, source, nb_config, logger, *args, **kwargs)

    create_client.jaxbook = True
    module.create_client = create_client


def executed_notebook(env, docname: str) -> Path | None:
    """The notebook MyST-NB wrote for ``docname`` in this build, or None if it executed none."""
    from myst_nb.sphinx_ import NbMetadataCollector

    executed = Path(env.mystnb_config.output_folder) / f"{docname}.ipynb"
    if NbMetadataCollector.get_exec_data(env, docname) is None or not executed.is_file():
        return None
    return executed


def code_cell_options(node) -> dict | None:
    """The options (metadata) of the code cell MyST-NB rendered as ``node``; None for another node."""
    if node.get("nb_element") != "cell_code":
        return None
    return node.get("cell_metadata", {})


def code_cell_source(cell):
    """The child of the code cell node ``cell`` that holds its source (MyST-NB folds a
    hide-input cell's first child only); None when it has none."""
    return next((c for c in cell.children if c.get("nb_element") == "cell_code_source"), None)
