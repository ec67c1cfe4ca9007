"""MyST-NB takes each page's outputs from the execution store, the one seam with its internals:
:func:`install_client` wraps ``create_client``; a page with snippet cells rendered without it fails
the build rather than publish outputs MyST-NB executed itself."""

from __future__ import annotations

import atexit
import functools
import inspect
import platform
import time
from pathlib import Path

from docutils import nodes
from sphinx.errors import ExtensionError
from sphinx.util import logging

from jaxbook import book_root, pages
from jaxbook.sphinxext.findings import CellFinding, report

logger = logging.getLogger(__name__)

#: What the book's kernel (IPython's) says of its language, as a notebook's metadata keeps it.
LANGUAGE_INFO = {
    "name": "python",
    "pygments_lexer": "ipython3",
    "codemirror_mode": {"name": "ipython", "version": 3},
    "file_extension": ".py",
    "mimetype": "text/x-python",
    "nbconvert_exporter": "python",
}
#: The leading parameters of MyST-NB's ``create_client`` that the wrapper reads.
CREATE_CLIENT_PARAMETERS = ("notebook", "source", "nb_config", "logger")
CHANGED = (
    "MyST-NB changed: {}; jaxbook/sphinxext/mystnb.py relies on it to give the pages their "
    "outputs from the execution store (review it, and docs/upstream.md)"
)

_app = None  # this process's Sphinx application (parallel workers are forks)
_filled: set[str] = set()  # the pages whose outputs this process took from the store


@functools.cache
def executor():
    """This process's executor: a kernel started on first need, kept for the next pages."""
    from jaxbook.execute import Executor

    started = Executor(book_root())
    atexit.register(started.close)
    return started


def install_client(module=None) -> None:
    """Wrap ``module.create_client`` (``myst_nb.sphinx_``'s) so that a page with snippet cells gets
    a client filled from the store (idempotent); raise RuntimeError if its parameters moved."""
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
            fill_outputs(self)

    def create_client(notebook, source, nb_config, logger, *args, **kwargs):
        if any(cell.get("metadata", {}).get("load") for cell in notebook.cells):
            return StoreClient(notebook, Path(source), nb_config, logger)
        return original(notebook, source, nb_config, logger, *args, **kwargs)

    create_client.jaxbook = True
    module.create_client = create_client


def fill_outputs(client) -> None:
    """Give the client's notebook its outputs from the store, and report each cell that fails."""
    from nbformat import from_dict

    from jaxbook import verdict
    from jaxbook.execute import executed_line

    docname, root = _app.env.docname, book_root()
    _filled.add(docname)
    page = client.path.resolve()
    start = time.perf_counter()
    try:
        result = executor().page(page)
    except Exception as exc:  # noqa: BLE001 - the kernel died or could not start: report it here
        message = f"the page could not be executed: {exc}"
        report(_app, docname, [CellFinding(1, verdict.Finding(None, "execution", message, message))])
        return
    # What a kernel's reply would have told MyST-NB: the cells' language, for their lexer.
    client.notebook.metadata["language_info"] = LANGUAGE_INFO | {"version": platform.python_version()}
    found, count = [], 0
    for index, cell in enumerate(client.notebook.cells):
        load = cell.get("metadata", {}).get("load")
        if cell.get("cell_type") != "code" or not load:
            continue
        outcome = result.cell(pages.loaded(page, load).relative_to(root).as_posix())
        count += 1
        cell.outputs = [from_dict(output) for output in outcome.outputs]
        cell.execution_count = count
        finding = verdict.verdict(
            outcome, root, compare_output=_app.config.jaxbook_expected_outputs, inputs=result.inputs
        )
        if finding is not None:
            found.append(CellFinding(client.cell_line(index), finding))
    if result.page in executor().executed:
        logger.info(executed_line(result))
    report(_app, docname, found)
    client.exec_metadata = {  # MyST-NB's record of the run; jaxbook.downloads offers executed pages
        "mtime": time.time(),
        "runtime": result.seconds or time.perf_counter() - start,
        "method": "jaxbook store",
        "succeeded": not found,
        "error": None,
        "traceback": None,
    }


def on_doctree_read(app, doctree) -> None:
    """Fail the build if MyST-NB rendered this page's snippet cells without the store's outputs."""
    loaded = (n.get("cell_metadata", {}).get("load") for n in doctree.findall(nodes.container))
    if any(loaded) and app.env.docname not in _filled:
        raise ExtensionError(CHANGED.format("Parser.parse no longer opens its client with create_client"))


def on_config_inited(app, config) -> None:
    global _app
    _app = app
    install_client()


def setup(app):
    app.connect("config-inited", on_config_inited)
    app.connect("doctree-read", on_doctree_read)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
