"""A snippet imports as ``python snippets/<folder>/x.py`` would: a helper of its own folder by its
bare name (jaxbook.snippet.script_folder), the folder appended to ``sys.path`` while it runs; the
kernel forgets such modules at each page by their file; one file under two module names is a
contract error; the key and the notebook know the bare helper too."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from jaxbook import ROOT, deps, downloads
from jaxbook.snippet import SnippetError, execute, main_namespace

pytestmark = pytest.mark.inputs("snippets")

#: The book's own top-level names, which a bare import must never reach by mistake.
BOOK_TOP_LEVEL = {
    p.stem for p in ROOT.iterdir() if p.suffix == ".py" or (p.is_dir() and not p.name.startswith("."))
}


def test_no_file_of_a_snippet_folder_has_the_name_of_a_module_anything_imports():
    """The folder is appended: a bare name finds the standard library, JAX, NumPy, Optax and the
    book first. So no snippet, helper or subfolder may bear such a name: it would be hidden there
    (and would hide it, were the folder put first, as ``python FILE`` does)."""
    clashes = []
    for folder in sorted({p.parent for p in (ROOT / "snippets").rglob("*.py")}):
        for entry in sorted(folder.iterdir()):
            name = entry.stem if entry.suffix == ".py" else entry.name if entry.is_dir() else None
            if not name or not name.isidentifier() or name == "__pycache__":
                continue
            where = entry.relative_to(ROOT).as_posix()
            if name in sys.stdlib_module_names or name in sys.builtin_module_names:
                clashes.append(f"{where}: '{name}' is a module of Python's standard library")
            elif name in BOOK_TOP_LEVEL:
                clashes.append(f"{where}: '{name}' is a top-level name of the book")
            elif importlib.util.find_spec(name) is not None:
                clashes.append(
                    f"{where}: '{name}' is an installed module ({importlib.util.find_spec(name).origin})"
                )
    assert not clashes, "rename these files:\n" + "\n".join(clashes)


def test_the_check_would_catch_a_clash():
    assert "random" in sys.stdlib_module_names and importlib.util.find_spec("optax") is not None
    assert "jaxbook" in BOOK_TOP_LEVEL and "snippets" in BOOK_TOP_LEVEL


@pytest.fixture
def book(tmp_path, monkeypatch):
    """A book at ``tmp_path`` whose folder ``lesson_<id>`` holds a helper ``_h.py``."""
    monkeypatch.setenv("JAXBOOK_ROOT", str(tmp_path))
    folder = tmp_path / f"lesson_{uuid.uuid4().hex[:8]}"
    folder.mkdir()
    (folder / "_h.py").write_text("VALUE = 42\n")
    yield folder
    for name in [n for n in sys.modules if n == "_h" or n.startswith(folder.name)]:
        del sys.modules[name]


def run(folder: Path, name: str, code: str):
    path = folder / name
    path.write_text(code)
    return execute(code, path, main_namespace(path))


def test_a_snippet_imports_a_helper_of_its_folder_by_its_bare_name(book, capsys):
    before = list(sys.path)
    run(book, "x.py", "import sys\nfrom _h import VALUE\nprint(VALUE, sys.path[-1])\n")
    value, last = capsys.readouterr().out.split()
    assert (value, last) == ("42", str(book))  # appended: after every other entry
    assert sys.path == before  # and gone after the snippet
    assert Path(sys.modules["_h"].__file__) == book / "_h.py"


#: Run in a process of its own: importing the kernel configures JAX for the build (no
#: compilation cache), and new_page resets the process's environment and warning filters.
NEW_PAGE = """
import builtins, os, sys, warnings
from pathlib import Path
from jaxbook import kernel, snippet

shell = type("Shell", (), {"user_ns": {"__builtins__": builtins}, "execution_count": 3})()
baseline = kernel.Baseline(frozenset(sys.modules), dict(os.environ), list(sys.path), os.getcwd(),
                           list(warnings.filters), frozenset(shell.user_ns))
path = Path(sys.argv[1])
snippet.execute(path.read_text(), path, snippet.main_namespace(path))
print("_h" in sys.modules, "_h" in snippet.book_modules())
kernel.new_page(shell, baseline)
print("_h" in sys.modules, shell.execution_count)
"""


def test_the_kernels_new_page_forgets_a_bare_helper_by_its_file(book):
    """The next page must import ``_h`` afresh (it may be another folder's ``_h``): the module is
    the book's by its file, though its name is no top-level folder or file of the book."""
    (book / "x.py").write_text("from _h import VALUE\n")
    done = subprocess.run(
        [sys.executable, "-c", NEW_PAGE, str(book / "x.py")],
        env={**os.environ, "JAXBOOK_ROOT": str(book.parent), "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == ["True", "True", "False", "1"], done.stdout + done.stderr[-3000:]


def test_one_file_under_two_module_names_is_a_contract_error(book, monkeypatch):
    monkeypatch.syspath_prepend(str(book.parent))
    run(book, "x.py", "from _h import VALUE\n")
    with pytest.raises(
        SnippetError,
        match=rf"^{book.name}/y\.py: {book.name}/_h\.py is imported as both '_h' and '{book.name}\._h'",
    ):
        run(book, "y.py", f"from {book.name}._h import VALUE\n")


def test_the_key_and_the_notebook_know_the_bare_helper():
    snippet_path = ROOT / "snippets" / "training" / "adamw.py"
    helper = ROOT / "snippets" / "training" / "_model.py"
    assert "from _model import" in snippet_path.read_text(encoding="utf-8")
    assert deps.project_dependencies(snippet_path) == [snippet_path.resolve(), helper.resolve()]
    assert deps.script_imports(snippet_path) == [helper.resolve()]
    faq = ROOT / "snippets" / "faq" / "with_optax.py"  # another folder: by its package path
    assert helper.resolve() in deps.project_dependencies(faq) and deps.script_imports(faq) == []
    cells = downloads.helper_cells([helper.resolve()], ROOT, "helper", beside={helper.resolve()})
    assert [downloads.source(c).partition("\n")[0] for c in cells] == ["%%writefile _model.py"]
    assert downloads.written_modules({"cells": cells}) == {"_model"}
    sentence = downloads.requirements_sentence(
        {"cells": [*cells, downloads.code("from _model import mlp\nimport optax\n", "x")]}
    )
    assert "_model" not in sentence and "optax" in sentence


def test_no_snippet_folder_holds_a_symlink():
    """A folder borrows another folder's helper by its package path, not by a link:
    deps.script_imports resolves a link to its target's folder, so the notebook would write a
    linked helper imported by its bare name at the target's path, not beside itself."""
    links = [p.relative_to(ROOT).as_posix() for p in (ROOT / "snippets").rglob("*") if p.is_symlink()]
    assert not links, (
        "import these helpers by their package path (docs/contributing.md, Helpers), not by a link:\n"
        + "\n".join(links)
    )
