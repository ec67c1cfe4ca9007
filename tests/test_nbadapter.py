"""The assumptions jaxbook.nbadapter and jaxbook.kernel make about MyST-NB, nbclient,
jupyter_client, ipykernel and IPython. If an upgrade breaks one, this file says which, loudly,
instead of the build running snippets under the wrong name."""

from __future__ import annotations

import inspect
from pathlib import Path

from jaxbook import nbadapter
from jaxbook.outputs import METADATA_KEY


def test_myst_nb_puts_the_load_option_in_the_cell_metadata(tmp_path):
    from myst_nb.core.read import read_myst_markdown_notebook

    (tmp_path / "snippets").mkdir()
    (tmp_path / "snippets" / "a.py").write_text("print('a')\n")
    page = tmp_path / "page.md"
    text = "# t\n\n```{code-cell} ipython3\n:load: snippets/a.py\n```\n"
    notebook = read_myst_markdown_notebook(text, path=page)
    cell = notebook.cells[-1]
    assert cell.metadata["load"] == "snippets/a.py", "MyST-NB no longer keeps ':load:' in metadata"
    assert cell.source.strip() == "print('a')", "MyST-NB no longer shows the file as the cell's code"


def test_nbclient_passes_the_notebook_folder_and_executes_cells_one_method():
    import nbclient.client as client

    source = inspect.getsource(client.execute)
    assert 'resources["metadata"] = {"path": cwd}' in source, "nbclient.execute changed resources"
    parameters = list(inspect.signature(client.NotebookClient.async_execute_cell).parameters)
    assert parameters[:3] == ["self", "cell", "cell_index"], parameters
    body = inspect.getsource(inspect.unwrap(client.NotebookClient.async_execute_cell))
    assert "self.kc.execute(" in body, "nbclient no longer sends cells with kc.execute"
    execute_all = inspect.getsource(client.NotebookClient.async_execute)
    assert "await self.async_execute_cell(" in execute_all
    # nbadapter reads the cells after cell_index from self.nb, the notebook being executed
    assert "enumerate(self.nb.cells)" in execute_all, "nbclient no longer indexes self.nb.cells"


def test_jupyter_client_session_metadata_reaches_the_execute_request():
    from jupyter_client.client import KernelClient
    from jupyter_client.session import Session

    assert 'self.session.msg("execute_request", content)' in inspect.getsource(KernelClient.execute)
    session = Session()
    session.metadata = {METADATA_KEY: {"snippet": "/book/snippets/a.py"}}
    msg = session.msg("execute_request", {"code": "x"})
    assert msg["metadata"][METADATA_KEY] == {"snippet": "/book/snippets/a.py"}


def test_ipykernel_and_ipython_hand_the_metadata_to_pre_run_cell():
    from ipykernel.kernelbase import Kernel
    from IPython.core.interactiveshell import ExecutionInfo, InteractiveShell

    assert 'cell_meta = parent.get("metadata", None)' in inspect.getsource(Kernel.execute_request)
    assert "cell_meta" in inspect.signature(InteractiveShell.run_cell).parameters
    assert "cell_meta" in inspect.signature(ExecutionInfo).parameters
    assert isinstance(InteractiveShell.input_transformers_post.default(), list)


def test_snippet_metadata_resolves_the_load_path_against_the_page_folder(tmp_path):
    cell = {"metadata": {"load": "../snippets/a/b.py"}}
    meta = nbadapter.snippet_metadata(cell, {"metadata": {"path": str(tmp_path / "guide")}})
    assert meta == {METADATA_KEY: {"snippet": str((tmp_path / "snippets/a/b.py").resolve())}}
    assert nbadapter.snippet_metadata({"metadata": {}}, {}) == {}
    later = nbadapter.snippet_metadata(cell, {"metadata": {"path": str(tmp_path / "guide")}}, more=True)
    assert later == {METADATA_KEY: {**meta[METADATA_KEY], "more": True}}
    assert nbadapter.loads_a_snippet({"cell_type": "code", "metadata": {"load": "a.py"}})
    assert not nbadapter.loads_a_snippet({"cell_type": "markdown", "metadata": {}})


def test_install_wraps_nbclient_once():
    from nbclient.client import NotebookClient

    nbadapter.install()
    wrapped = NotebookClient.async_execute_cell
    nbadapter.install()
    assert NotebookClient.async_execute_cell is wrapped
    assert getattr(wrapped, nbadapter._MARK) and Path(inspect.getsourcefile(wrapped)).name == "nbadapter.py"
