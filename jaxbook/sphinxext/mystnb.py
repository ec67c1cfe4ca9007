"""MyST-NB takes each page's outputs from the execution store: its client for a page with snippet
cells is filled from the store (:func:`fill_outputs`, through :mod:`jaxbook.upstream.mystnb`); a page
with snippet cells rendered without it fails the build rather than publish outputs MyST-NB
executed itself."""

from __future__ import annotations

import atexit
import functools
import platform
import time
from pathlib import Path

from docutils import nodes
from sphinx.errors import ExtensionError
from sphinx.util import logging

from jaxbook import book_root, pages
from jaxbook.sphinxext.findings import CellFinding, report
from jaxbook.upstream import mystnb as upstream

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
#: The attribute of a page's doctree that holds its stamp (:func:`jaxbook.runtime.stamp`).
STAMP = "jaxbook_stamp"
_app = None  # this process's Sphinx application (parallel workers are forks)
_filled: set[str] = set()  # the pages whose outputs this process took from the store
_stamps: dict[str, dict] = {}  # by page, the environment of the kernel that produced its outputs


@functools.cache
def executor():
    """This process's executor: a kernel started on first need, kept for the next pages."""
    from jaxbook.execute import Executor

    started = Executor(book_root())
    atexit.register(started.close)
    return started


def fill_outputs(notebook, path: Path, cell_line) -> tuple[float, bool] | None:
    """Give ``notebook`` (the page at ``path``) its outputs from the store and report each cell that
    fails (at ``cell_line(index)``): (the seconds it took, whether every cell passed), None if the
    page could not be executed."""
    from nbformat import from_dict

    from jaxbook import verdict
    from jaxbook.execute import executed_line

    docname, root = _app.env.docname, book_root()
    _filled.add(docname)
    page = path.resolve()
    start = time.perf_counter()
    try:
        result = executor().page(page)
    except Exception as exc:  # noqa: BLE001 - the kernel died or could not start: report it here
        message = f"the page could not be executed: {exc}"
        report(_app, docname, [CellFinding(1, verdict.Finding(None, "execution", message, message))])
        return None
    if result.stamp:
        _stamps[docname] = result.stamp
    # What a kernel's reply would have told MyST-NB: the cells' language, for their lexer.
    notebook.metadata["language_info"] = LANGUAGE_INFO | {"version": platform.python_version()}
    found, count = [], 0
    for index, cell in enumerate(notebook.cells):
        load = cell.get("metadata", {}).get("load")
        if cell.get("cell_type") != "code" or not load:
            continue
        outcome = result.cell(pages.loaded(page, load).relative_to(root).as_posix())
        count += 1
        cell.outputs = [from_dict(output) for output in outcome.jupyter_outputs]
        cell.execution_count = count
        finding = verdict.judge(
            outcome, root, compare_output=_app.config.jaxbook_expected_outputs, inputs=result.inputs
        )
        if finding is not None:
            found.append(CellFinding(cell_line(index), finding))
    if result.page in executor().executed:
        logger.info(executed_line(result))
    report(_app, docname, found)
    return result.seconds or time.perf_counter() - start, not found


def on_doctree_read(app, doctree) -> None:
    """Fail the build if MyST-NB rendered this page's snippet cells without the store's outputs;
    keep in the page's doctree the stamp of the kernel that produced them (:data:`STAMP`)."""
    options = (upstream.code_cell_options(n) or {} for n in doctree.findall(nodes.container))
    if any(o.get("load") for o in options) and app.env.docname not in _filled:
        raise ExtensionError(upstream.NOT_FILLED)
    if app.env.docname in _stamps:
        doctree[STAMP] = _stamps.pop(app.env.docname)


def on_config_inited(app, config) -> None:
    global _app
    _app = app
    upstream.wrap_create_client(fill_outputs)


def setup(app):
    app.connect("config-inited", on_config_inited)
    app.connect("doctree-read", on_doctree_read)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
