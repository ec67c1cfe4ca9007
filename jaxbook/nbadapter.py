"""The one place that relies on MyST-NB and nbclient internals: naming each cell's snippet.

MyST-NB reads ``:load: ../snippets/x/y.py`` into the cell's metadata (``cell.metadata["load"]``,
relative to the page) and nbclient executes the notebook with the page's folder as
``resources["metadata"]["path"]``. Neither lets a caller add metadata to the execute request,
which is where the Jupyter protocol carries per-cell data (IPython hands it to ``pre_run_cell``
listeners as ``ExecutionInfo.cell_meta``). :func:`install` therefore wraps
``nbclient.NotebookClient.async_execute_cell`` so that, while a cell executes, the client's
session adds ``{"jaxbook": {"snippet": "<absolute path>"}}`` to the messages it sends (jupyter
client's ``Session.metadata``: "the default top-level metadata dict for each message"), with
``"more": true`` when snippet cells follow it on the page (``self.nb.cells[cell_index + 1:]``):
the kernel then reports an output that differs at the page's last snippet, with every other
difference on the page, instead of stopping the page at the first one.

``tests/test_nbadapter.py`` checks each of these assumptions and fails loudly when an upgrade
changes one of them.
"""

from __future__ import annotations

import functools
from pathlib import Path

from jaxbook.outputs import METADATA_KEY

_MARK = "_jaxbook_snippet_path"


def snippet_metadata(cell, resources: dict, more: bool = False) -> dict:
    """The execute request metadata naming ``cell``'s snippet (empty for a cell without one);
    ``more``: snippet cells follow it on the page."""
    load = (cell.get("metadata") or {}).get("load")
    folder = (resources.get("metadata") or {}).get("path")
    if not load:
        return {}
    if not folder:
        raise RuntimeError(
            "jaxbook.nbadapter: nbclient gave no notebook folder "
            "(resources['metadata']['path']); cannot resolve ':load: "
            f"{load}'. Has an upgrade of MyST-NB or nbclient changed this?"
        )
    meta = {"snippet": str((Path(folder) / load).resolve())}
    return {METADATA_KEY: {**meta, "more": True} if more else meta}


def loads_a_snippet(cell) -> bool:
    return cell.get("cell_type") == "code" and bool((cell.get("metadata") or {}).get("load"))


def install() -> None:
    """Make nbclient send each cell's snippet path with its execute request (idempotent)."""
    from nbclient.client import NotebookClient

    original = NotebookClient.async_execute_cell
    if getattr(original, _MARK, False):
        return

    @functools.wraps(original)
    async def async_execute_cell(self, cell, cell_index, *args, **kwargs):
        session = self.kc.session if self.kc is not None else None
        if session is None:
            return await original(self, cell, cell_index, *args, **kwargs)
        saved = session.metadata
        more = any(loads_a_snippet(later) for later in self.nb.cells[cell_index + 1 :])
        session.metadata = {**saved, **snippet_metadata(cell, self.resources, more)}
        try:
            return await original(self, cell, cell_index, *args, **kwargs)
        finally:
            session.metadata = saved

    setattr(async_execute_cell, _MARK, True)
    NotebookClient.async_execute_cell = async_execute_cell
