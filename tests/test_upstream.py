"""The seams (jaxbook/upstream/): each dependency's internals the book uses, checked against the
installed version, and used nowhere but in their seam. A failure names the upstream change and the
seam to adapt; docs/upstream.md ("The seams") says what public interface each waits on. ``.ci/upstream``
runs these against the libraries' next releases (MyST-NB's main branch)."""

from __future__ import annotations

import ast
import importlib
import inspect
import logging
import os
import platform
import re
import shutil
import subprocess
import sys
import types
from importlib.metadata import version
from pathlib import Path

import nbformat
import pytest

from jaxbook import ROOT, fingerprint, runtime
from jaxbook.sphinxext import quiet
from jaxbook.upstream import hypothesis, myst_parser, mystnb, opengraph, sphinx as sphinx_seam, theme

pytestmark = pytest.mark.inputs(
    "jaxbook", "tools", "tests", "_static", "_templates", "conf.py", "conftest.py"
)


def changed(dependency: str, what: str, seam: str, section: str | None = None) -> str:
    """The message of a broken contract: what changed upstream and where the book relies on it;
    ``section`` is the heading of docs/upstream.md's seam table, when not the dependency's name."""
    return (
        f"{dependency} {version(dependency)} changed: {what}. {seam} relies on it: adapt it there; "
        f"docs/upstream.md ('The seams: internals the book uses', {section or dependency}) says what it waits on"
    )


def notebook(metadata, *cells):
    return nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1", metadata=metadata), *cells])


# --- MyST-NB --------------------------------------------------------------------------------------

SEAM = "jaxbook/upstream/mystnb.py"


def test_myst_nb_opens_the_store_client_for_pages_with_snippets(monkeypatch):
    import myst_nb.sphinx_
    from myst_nb.core.config import NbParserConfig
    from myst_nb.core.execute import NotebookClientBase

    monkeypatch.setattr(myst_nb.sphinx_, "create_client", myst_nb.sphinx_.create_client)  # restored after
    config, logger, filled = NbParserConfig(execution_mode="off"), logging.getLogger("test"), []

    def fill(notebook, path, cell_line):
        filled.append((path, cell_line(0)))
        return 1.5, True

    mystnb.wrap_create_client(fill)
    mystnb.wrap_create_client(fill)  # idempotent: wraps once
    create_client = myst_nb.sphinx_.create_client
    with create_client(notebook({"load": "../snippets/a.py"}), "guide/a.md", config, logger) as client:
        assert isinstance(client, NotebookClientBase), changed("myst-nb", "NotebookClientBase", SEAM)
    assert filled == [(Path("guide/a.md"), filled[0][1])], changed(
        "myst-nb", "start_client is not called", SEAM
    )
    assert client.exec_metadata["runtime"] == 1.5, changed("myst-nb", "exec_metadata", SEAM)
    plain = create_client(notebook({}), "guide/a.md", config, logger)
    assert type(plain).__name__ != "StoreClient"
    parse = inspect.getsource(myst_nb.sphinx_.Parser.parse)
    assert "create_client(" in parse, changed("myst-nb", "Parser.parse does not call create_client", SEAM)


def test_myst_nb_left_to_itself_executes_no_page():
    """Should MyST-NB stop calling the client factory the book wraps, conf.py's execution mode
    keeps it from executing a page itself, in whatever kernel Jupyter finds: the build stops at
    the first page with snippet cells, in seconds (``mystnb.on_doctree_read``, NOT_FILLED)."""
    from myst_nb.core.config import NbParserConfig
    from myst_nb.core.execute import NotebookClientBase, create_client

    conf = ast.parse((ROOT / "conf.py").read_text(encoding="utf-8"))
    modes = [
        node.value.value
        for node in conf.body
        if isinstance(node, ast.Assign)
        and [getattr(t, "id", None) for t in node.targets] == ["nb_execution_mode"]
    ]
    assert len(modes) == 1, "conf.py sets nb_execution_mode once"
    config = NbParserConfig(execution_mode=modes[0])
    client = create_client(
        notebook({"load": "../snippets/a.py"}), "guide/a.md", config, logging.getLogger("t")
    )
    assert type(client) is NotebookClientBase, (
        f"conf.py: nb_execution_mode = {modes[0]!r} lets MyST-NB execute a page itself "
        f"({type(client).__name__}); the book's pages take their outputs from the store: 'off'"
    )


@pytest.mark.parametrize(
    ("create_client", "message"),
    [(None, "has no function create_client"), (lambda notebook, path, config, logger: None, "begin")],
    ids=["no create_client", "other parameters"],
)
def test_a_myst_nb_that_moved_create_client_fails_with_what_changed(create_client, message):
    module = types.SimpleNamespace(__name__="myst_nb.sphinx_", create_client=create_client)
    with pytest.raises(RuntimeError, match=f"MyST-NB changed: .*{message}"):
        mystnb.wrap_create_client(lambda *args: None, module)


def test_myst_nb_records_the_pages_it_executed(tmp_path):
    from myst_nb.core.config import NbParserConfig
    from myst_nb.sphinx_ import NbMetadataCollector

    env = types.SimpleNamespace(mystnb_config=NbParserConfig(output_folder=str(tmp_path)))
    (tmp_path / "guide").mkdir()
    (tmp_path / "guide" / "a.ipynb").write_text("{}", encoding="utf-8")
    assert mystnb.executed_notebook(env, "guide/a") is None
    NbMetadataCollector.set_exec_data(env, "guide/a", {"succeeded": True})
    found = mystnb.executed_notebook(env, "guide/a")
    assert found == tmp_path / "guide" / "a.ipynb", changed("myst-nb", "NbMetadataCollector", SEAM)


def test_myst_nb_marks_its_code_cells_with_their_options(tmp_path):
    from docutils import nodes
    from docutils.core import publish_doctree
    from myst_nb.docutils_ import Parser

    page = notebook({"load": "../snippets/a.py"}, nbformat.v4.new_markdown_cell("Some prose."))
    page.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    settings = {"nb_execution_mode": "off", "nb_output_folder": str(tmp_path), "report_level": 4}
    doctree = publish_doctree(nbformat.writes(page), parser=Parser(), settings_overrides=settings)
    found = [mystnb.code_cell_options(n) for n in doctree.findall(nodes.container)]
    assert {"load": "../snippets/a.py"} in found, changed(
        "myst-nb", "a code cell's nb_element or cell_metadata", SEAM
    )
    assert mystnb.code_cell_options(nodes.container()) is None
    sources = [
        mystnb.code_cell_source(n) for n in doctree.findall(nodes.container) if mystnb.code_cell_options(n)
    ]
    assert sources and all(sources), changed("myst-nb", "a code cell's source child (nb_element)", SEAM)


# --- myst-parser ----------------------------------------------------------------------------------


def test_myst_parser_reads_directives_as_the_book_reads_its_cells():
    from jaxbook.pages import CODE_CELL, MYST_EXTENSIONS

    text = "```{code-cell}\n:load: ../snippets/a.py\n:tags: [hide-input]\n```\n\n:::{note}\nx\n:::\n"
    blocks = myst_parser.markdown_parser(frozenset(MYST_EXTENSIONS)).parse(text)
    fences = [t for t in blocks if t.type == "fence"]
    seam = "jaxbook/upstream/myst_parser.py"
    assert fences and fences[0].info.startswith(CODE_CELL), changed("myst-parser", "create_md_parser", seam)
    read = myst_parser.directive("", fences[0].content)
    message = changed("myst-parser", "parse_directive_text", seam)
    assert (read.options.get("load"), read.warning) == ("../snippets/a.py", None), message
    unreadable = myst_parser.directive("", ":load: [\n")
    assert unreadable.warning, changed("myst-parser", "parse_directive_text's warnings", seam)


# --- Sphinx ---------------------------------------------------------------------------------------


def test_sphinx_notes_pages_to_read_again_where_the_seam_forgets_them():
    from sphinx.directives.other import TocTree
    from sphinx.environment import BuildEnvironment

    seam = "jaxbook/upstream/sphinx.py"
    noted = inspect.getsource(BuildEnvironment.note_reread)
    assert "self.reread_always.add(" in noted, changed(
        "Sphinx", "note_reread no longer uses reread_always", seam
    )
    assert "note_reread()" in inspect.getsource(TocTree), changed("Sphinx", "a toctree's missing page", seam)
    env = types.SimpleNamespace(reread_always={"index"})
    sphinx_seam.forget_rereads(env)
    assert env.reread_always == set()


def test_sphinx_reads_an_image_size(tmp_path):
    svg = tmp_path / "a.svg"
    svg.write_text('<svg xmlns="http://www.w3.org/2000/svg" width="20" height="10"></svg>', encoding="utf-8")
    size = sphinx_seam.image_size(svg)
    assert size == (20, 10), changed("Sphinx", "get_image_size", "jaxbook/upstream/sphinx.py")
    assert sphinx_seam.image_size(tmp_path / "missing.png") is None


def test_sphinx_search_summarises_results_with_the_function_the_site_patches():
    """_static/search-summary.js replaces Search.htmlToText (searchtools.js) to drop the toolbar."""
    import sphinx

    tools = (Path(sphinx.__file__).parent / "themes/basic/static/searchtools.js").read_text(encoding="utf-8")
    message = changed("Sphinx", "Search.htmlToText(htmlString, anchor)", "_static/search-summary.js")
    assert re.search(r"htmlToText: \(htmlString, anchor\) =>", tools), message
    assert "Search.htmlToText(" in tools, message


@pytest.mark.parametrize("name", sorted(quiet.QUIET))
def test_the_lines_kept_quiet_are_still_logged_where_quiet_looks(name):
    """jaxbook/sphinxext/quiet.py filters other extensions' loggers by their module and message."""
    module = importlib.import_module(name.removeprefix("sphinx."))
    source = inspect.getsource(module)
    for text in quiet.QUIET[name]:
        assert text in source, changed(module.__name__.split(".")[0].replace("_", "-"), text, "quiet.py")


# --- the theme and sphinxext-opengraph ------------------------------------------------------------


def theme_files() -> str:
    import pydata_sphinx_theme
    import sphinx_book_theme

    found = []
    for package in (pydata_sphinx_theme, sphinx_book_theme):
        for path in sorted(Path(package.__file__).parent.rglob("*")):
            if path.suffix in (".html", ".css", ".js", ".py") and ".min." not in path.name:
                found.append(path.read_text(encoding="utf-8", errors="replace"))
    return "\n".join(found)


def test_the_theme_still_has_every_name_the_book_selects():
    files = theme_files()
    for name in theme.NAMES:  # as it is, or composed from a label (dropdown-{label})
        found = name in files or name.split("-", 1)[-1] in files
        assert found, changed("pydata-sphinx-theme", f"no {name}", "jaxbook/upstream/theme.py NAMES")
    for key in theme.MODE_KEYS:
        assert f'localStorage.setItem("{key}"' in files, changed(
            "pydata-sphinx-theme", key, "theme.MODE_KEYS"
        )
    assert 'data-theme="{{ default_mode }}"' in files, changed(
        "pydata-sphinx-theme", "layout.html's data-theme attribute", "_templates/layout.html"
    )
    assert "button.blur()" in files, changed(
        "sphinx-book-theme", "its header buttons no longer call blur()", "_static/keyboard.js"
    )


def test_the_theme_offers_the_notebook_the_page_context_names():
    import sphinx_book_theme
    from sphinx_book_theme import header_buttons

    source = inspect.getsource(header_buttons)
    assert 'context.get("ipynb_source")' in source, changed("sphinx-book-theme", "ipynb_source", "theme.py")
    priority = re.search(
        r'"html-page-context", add_header_buttons, priority=(\d+)', inspect.getsource(sphinx_book_theme)
    )
    assert priority and int(priority[1]) > theme.BEFORE_HEADER_BUTTONS, changed(
        "sphinx-book-theme", "the priority of add_header_buttons", "theme.BEFORE_HEADER_BUTTONS"
    )
    context = {}
    theme.offer_notebook(context, "guide/a.ipynb")
    assert context == {"ipynb_source": "guide/a.ipynb"}


def test_opengraph_takes_the_description_the_book_gives_it():
    import sphinxext.opengraph as module

    source = inspect.getsource(module)
    seam = "jaxbook/upstream/opengraph.py"
    assert "connect('html-page-context', html_page_context)" in source.replace('"', "'"), changed(
        "sphinxext-opengraph", "its html-page-context handler's priority", seam
    )
    assert opengraph.BEFORE_TAGS < 500
    assert "context['meta']" in source.replace('"', "'"), changed("sphinxext-opengraph", "page fields", seam)
    context = {"meta": {"author": "x"}}
    opengraph.describe(context, "A page.")
    assert context["meta"] == {"author": "x", "og:description": "A page."}


# --- Hypothesis, IPython, JAX, pytest -------------------------------------------------------------


def test_hypothesis_draws_examples_from_the_strategies_alone(monkeypatch):
    """tests/test_check.py shows why; this says where it broke."""
    from hypothesis.internal.conjecture import providers

    seam = "jaxbook/upstream/hypothesis.py"
    assert hasattr(providers, "_get_local_constants"), changed("hypothesis", "_get_local_constants", seam)
    monkeypatch.setattr(providers, "_get_local_constants", providers._get_local_constants)  # restored after
    hypothesis.draw_from_strategies_only()
    assert providers._get_local_constants() == providers.Constants(), changed("hypothesis", "Constants", seam)


def test_ipython_reads_the_configuration_folders_the_kernel_empties():
    from IPython.core import application

    source = (ROOT / "jaxbook" / "kernel.py").read_text(encoding="utf-8")
    for name in ("SYSTEM_CONFIG_DIRS", "ENV_CONFIG_DIRS"):
        assert isinstance(getattr(application, name, None), list), changed(
            "ipython", name, "jaxbook/kernel.py"
        )
        assert f"application.{name}.clear()" in source


def test_jax_errors_are_named_by_their_public_module():
    import jax

    from jaxbook.snippet import class_path

    error = jax.errors.ConcretizationTypeError
    assert error.__module__ in ("jax._src.errors", "jax.errors"), changed(
        "jax", error.__module__, "jaxbook/snippet.py"
    )
    assert class_path(error) == "jax.errors.ConcretizationTypeError"


@pytest.mark.inputs("snippets")
def test_the_private_jax_classes_snippets_declare_still_exist_and_no_other_is_declared():
    """A snippet may name a class by JAX's private path only where JAX exports it nowhere; when JAX
    moves one, this names it (and the seam, jaxbook/snippet.py) instead of a page failing to build."""
    import importlib

    from jaxbook.snippet import PRIVATE_CLASSES, _header, class_path

    for path in PRIVATE_CLASSES:
        module, _, name = path.rpartition(".")
        cls = getattr(importlib.import_module(module), name, None)
        assert isinstance(cls, type) and issubclass(cls, Exception), changed(
            "jax", path, "jaxbook/snippet.py"
        )
        assert class_path(cls) == path, f"JAX now exports {path} as {class_path(cls)}: declare that"
    declared = {}
    for path in sorted((ROOT / "snippets").rglob("*.py")):
        name = path.relative_to(ROOT).as_posix()
        header = _header(path.read_text(encoding="utf-8"), name)  # the contract's own parser
        for value, line in (header[key] for key in ("raises", "warns") if key in header):
            if value.startswith("jax._src."):
                declared[f"{name}:{line}"] = value
    unknown = {k: v for k, v in declared.items() if v not in PRIVATE_CLASSES}
    assert declared and not unknown, (
        f"{unknown}: a private JAX path; use the public one, or where JAX exports the class nowhere, "
        "add it to PRIVATE_CLASSES (jaxbook/snippet.py) and docs/upstream.md"
    )


def test_pytest_sets_up_the_fixtures_in_the_order_of_item_fixturenames(tmp_path):
    """tests/pass_cache.py puts ``_built_unchanged`` first, before even a session's fixture."""
    (tmp_path / "conftest.py").write_text(
        "import pytest\nlog = []\n"
        "def pytest_collection_modifyitems(items):\n"
        "    for item in items:\n        item.fixturenames.insert(0, 'first')\n"
        "@pytest.fixture\ndef first():\n    log.append('first')\n"
        "@pytest.fixture(scope='session')\ndef browser():\n    log.append('browser')\n",
        encoding="utf-8",
    )
    (tmp_path / "test_a.py").write_text(
        "from conftest import log\ndef test_a(browser):\n    assert log == ['first', 'browser'], log\n",
        encoding="utf-8",
    )
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=", "-p", "no:xdist"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, (
        changed("pytest", "item.fixturenames' order", "tests/pass_cache.py") + run.stdout
    )


# --- ipykernel, JAX's configuration, XLA's flags, cosmic-ray -------------------------------------


def test_ipykernel_builds_its_output_pipe_where_the_kernel_turns_it_off(monkeypatch):
    """jaxbook/kernel.py's ``without_tcp`` replaces ipykernel's module global ``IOPubThread`` by a
    subclass forcing ``pipe=False``: that works while ``init_iopub`` builds the thread by that
    global's name with that keyword (tests/test_kernel_start.py shows why, given a C compiler)."""
    from ipykernel import iostream, kernelapp

    from jaxbook import kernel

    seam = "jaxbook/kernel.py (without_tcp)"
    assert "pipe" in inspect.signature(iostream.IOPubThread).parameters, changed(
        "ipykernel", "IOPubThread takes no 'pipe' keyword", seam
    )
    builds = inspect.getsource(kernelapp.IPKernelApp.init_iopub)
    assert re.search(r"\bIOPubThread\(", builds) and "pipe=" in builds, changed(
        "ipykernel",
        "IPKernelApp.init_iopub no longer builds IOPubThread(..., pipe=...) by its module's name",
        seam,
    )
    monkeypatch.setattr(kernelapp, "IOPubThread", kernelapp.IOPubThread)  # restored after
    kernel.without_tcp()
    assert issubclass(kernelapp.IOPubThread, iostream.IOPubThread)
    assert inspect.signature(kernelapp.IOPubThread).parameters["pipe"].default is False


def test_ipykernel_passes_each_display_through_the_hooks_the_kernel_registers():
    """jaxbook/kernel.py's ``run`` records a snippet's rich outputs by a hook on the shell's
    display publisher (``register_hook``/``unregister_hook``, each message through every hook)."""
    from ipykernel import zmqshell

    seam = "jaxbook/kernel.py (run)"
    publisher = zmqshell.ZMQInteractiveShell.class_traits()["display_pub_class"].default_value
    assert publisher is zmqshell.ZMQDisplayPublisher, changed(
        "ipykernel", f"the shell's display publisher is {publisher}", seam
    )
    for name in ("register_hook", "unregister_hook"):
        method = getattr(publisher, name, None)
        assert callable(method) and list(inspect.signature(method).parameters) == ["self", "hook"], changed(
            "ipykernel", f"ZMQDisplayPublisher.{name}(hook) is gone or takes other arguments", seam
        )
    from jupyter_client.session import Session

    sent, seen = [], []
    socket = types.SimpleNamespace(send_multipart=lambda parts, *args, **kwargs: sent.append(parts))
    shown = publisher(session=Session(key=b""), pub_socket=socket)

    def hook(msg):
        seen.append(msg)
        return msg

    shown.register_hook(hook)
    shown.publish({"text/plain": "x"}, {"a": 1})
    message = changed(
        "ipykernel", "ZMQDisplayPublisher.publish no longer passes each message through its hooks", seam
    )
    assert [(m["msg_type"], m["content"]["data"], m["content"]["metadata"]) for m in seen] == [
        ("display_data", {"text/plain": "x"}, {"a": 1})
    ], message
    assert len(sent) == 1, changed("ipykernel", "a message a hook returns is not sent on", seam)
    shown.unregister_hook(hook)
    shown.publish({"text/plain": "y"})
    assert len(seen) == 1 and len(sent) == 2, changed(
        "ipykernel", "unregister_hook leaves the hook called", seam
    )


def test_jax_lists_its_configuration_where_the_kernel_restores_it():
    """jaxbook/snippet.py's ``restored_state`` reads ``jax.config.values`` (an undocumented
    property) to undo what a snippet changed in JAX's configuration."""
    import jax

    from jaxbook import snippet

    seam = "jaxbook/snippet.py (restored_state)"
    values = getattr(jax.config, "values", None)
    assert isinstance(values, dict) and "jax_enable_x64" in values, changed(
        "jax", "jax.config.values is no longer a dict of every option", seam
    )
    before = values["jax_enable_x64"]
    with snippet.restored_state():
        jax.config.update("jax_enable_x64", not before)
        assert jax.config.values["jax_enable_x64"] is (not before), changed(
            "jax", "jax.config.values no longer shows an option's current value", seam
        )
    assert jax.config.values["jax_enable_x64"] is before


#: Whether this machine is x86-64: only there do the x86 instruction sets of ``OTHER_CPUS`` name a
#: CPU XLA can emulate (elsewhere XLA warns "Unknown CPU ISA", as tests/test_notebooks.py knows).
X86 = platform.machine().lower() in ("x86_64", "amd64")


@pytest.mark.parametrize("cpu", [None, *runtime.OTHER_CPUS])
def test_xla_accepts_the_flags_the_book_starts_jax_with(monkeypatch, cpu):
    """jaxbook/runtime.py sets XLA debug flags (the emulated devices; another CPU's instruction set
    and vector width, ``JAXBOOK_AS_CPU``): XLA stops a process at a flag it no longer knows, and
    only warns at a value it no longer knows. The x86 instruction sets are checked on x86-64 only."""
    if cpu is not None and "_isa=" in runtime.OTHER_CPUS[cpu] and not X86:
        pytest.skip(f"{runtime.OTHER_CPUS[cpu]} names an x86 instruction set; this is {platform.machine()}")
    monkeypatch.delenv("JAXBOOK_DEVICES", raising=False)
    monkeypatch.delenv("JAXBOOK_AS_CPU", raising=False)
    if cpu is not None:
        monkeypatch.setenv("JAXBOOK_AS_CPU", cpu)
    env = runtime.jax_env()
    script = "import jax, jax.numpy as jnp; print(jax.device_count(), float((jnp.ones(3) + 1).sum()))"
    run = subprocess.run(
        [sys.executable, "-c", script], env={**os.environ, **env}, capture_output=True, text=True, check=False
    )
    what = f"XLA_FLAGS={env['XLA_FLAGS']!r} is refused or ignored:\n{run.stderr[-2000:]}"
    broken = changed("jaxlib", what, "jaxbook/runtime.py", section="XLA")
    assert run.returncode == 0 and "Unknown" not in run.stderr, broken
    assert run.stdout.split() == [str(runtime.DEVICE_COUNT), "6.0"], broken


def test_cosmic_ray_mutates_code_as_the_mutation_report_reads_it():
    """tools/mutation.py lists cosmic-ray's operators and applies them with its internal modules
    (``plugins``, ``ast``, ``mutating``): ``make mutation`` needs them as they are."""
    from tools import mutation

    found = {(m["id"], m["change"]) for m in mutation.mutants("def f(a, b):\n    return a + b\n")}
    assert ("ReplaceBinaryOperator_Add_Sub#0", "return a + b -> return a - b") in found, changed(
        "cosmic-ray",
        f"its operators no longer turn a + b into a - b (found {sorted(found)})",
        "tools/mutation.py",
    )
    assert not any("Bit" in name for name, _ in found), (
        "tools/mutation.BITWISE no longer filters cosmic-ray's names"
    )


#: :func:`jaxbook.fingerprint.machinery` when the list "Waiting for the next kernel change" in
#: docs/maintainers.md was last done: edits held back because each executes every page again.
KERNEL_AT_LIST = "0fbb7074c441af3c41a369a3a9c6838913cc5662ea156b30b1f18447eb1d3c30"


def test_a_change_of_the_kernels_code_brings_the_waiting_edits():
    """The kernel's seams stay in its hashed modules, with edits that wait for the next change of
    its code: this fires at that change, so that they are made in it, not in a second one."""
    now = fingerprint.machinery()
    assert now == KERNEL_AT_LIST, (
        "the kernel's code changed: do the list 'Waiting for the next kernel change' in "
        f"docs/maintainers.md in the same change, then set KERNEL_AT_LIST to {now!r} (tests/test_upstream.py)"
    )


def test_the_kernels_code_hash_is_the_same_on_every_machine(tmp_path):
    """What the test above pins depends on the files' names and contents only: not on where the
    book lies, nor on when its files were written (a copy, with new times, hashes the same)."""
    package = tmp_path / "elsewhere" / fingerprint.PACKAGE.name
    shutil.copytree(
        fingerprint.PACKAGE,
        package,
        copy_function=shutil.copyfile,
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    assert fingerprint.machinery(package=package) == fingerprint.machinery()
    (package / "kernel.py").write_text(
        "# one line more\n" + (package / "kernel.py").read_text(), encoding="utf-8"
    )
    assert fingerprint.machinery(package=package) != fingerprint.machinery()


# --- nowhere else ---------------------------------------------------------------------------------

#: Each dependency's internals (a pattern) -> the files allowed to use them: the seam, and the
#: tests of what the seam is for.
INTERNALS = {
    r"\bcreate_client\b|NbMetadataCollector|mystnb_config|\bnb_element\b|\bcell_metadata\b|exec_metadata|"
    r"NotebookClientBase|\"sphinx\.myst_nb\.": {
        SEAM,
        "tests/test_sphinxext.py",
        "tests/test_reader_cells.py",
    },
    r"parse_directive_text|myst_parser\.(?:parsers|config)|\"sphinx\.myst_parser\.": {
        "jaxbook/upstream/myst_parser.py"
    },
    r"reread_always|get_image_size|env_version\W+\w*\(|\"sphinx\.sphinx\.|builder\.templates|\"templates\"": {
        "jaxbook/upstream/sphinx.py"
    },
    r"htmlToText": {"_static/search-summary.js", "tests/browser/test_interaction.py"},
    r"ipynb_source|add_header_buttons": {"jaxbook/upstream/theme.py"},
    r"og:description\W+:|context\[.meta.\]": {"jaxbook/upstream/opengraph.py"},
    r"_get_local_constants": {"jaxbook/upstream/hypothesis.py"},
    r"SYSTEM_CONFIG_DIRS|ENV_CONFIG_DIRS": {"jaxbook/kernel.py", "tests/test_kernel_start.py"},
    r"jax\._src": {"jaxbook/snippet.py", "tests/test_reader_cells.py"},  # the latter: a declaration's text
    r"IOPubThread|\bkernelapp\.|register_hook": {"jaxbook/kernel.py"},
    r"jax\.config\.values": {"jaxbook/snippet.py"},
    r"xla_force_host|xla_cpu_max_isa|xla_cpu_prefer_vector": {"jaxbook/runtime.py", "tests/test_runtime.py"},
    r"cosmic_ray\.": {"tools/mutation.py"},
    r"\bconfig\._[a-z]|sys\._getframe|fixturenames\.insert|names\.insert": {"tests/pass_cache.py"},
}


def sources() -> list[Path]:
    found = [ROOT / "conf.py", ROOT / "conftest.py", *sorted((ROOT / "_static").glob("*.js"))]
    found += sorted(p for p in (ROOT / "_templates").rglob("*") if p.is_file())
    for folder in ("jaxbook", "tools", "tests"):
        found += sorted((ROOT / folder).rglob("*.py"))
    return [p for p in found if p.name != Path(__file__).name and "__pycache__" not in p.parts]


def test_every_use_of_a_dependencys_internals_is_in_its_seam():
    wrong = []
    for path in sources():
        relative = path.relative_to(ROOT).as_posix()
        text = path.read_text(encoding="utf-8")
        for pattern, allowed in INTERNALS.items():
            if relative in allowed:
                continue
            for match in re.finditer(pattern, text):
                line = text.count("\n", 0, match.start()) + 1
                wrong.append(f"{relative}:{line}: {match[0]} (call its seam, one of {sorted(allowed)})")
    assert not wrong, "\n".join(wrong)


def test_every_theme_name_the_book_selects_is_declared():
    """So that the theme's contract test above checks each of them: a compound name (``a-b``,
    ``a_b``) that the book's stylesheets, scripts, templates and browser tests select and that the
    theme's files hold (the ``bd-``/``pst-`` ones wherever they are)."""
    files, used = theme_files(), set()
    for path in [
        *(ROOT / "_static").glob("*.css"),
        *(ROOT / "_static").glob("*.js"),
        *(ROOT / "_templates").glob("*"),
    ]:
        used |= set(re.findall(r"(?<![\w-])(?:bd|pst)-[a-z][\w-]*", path.read_text(encoding="utf-8")))
    for path in [
        *(ROOT / "_static").glob("*"),
        *(ROOT / "_templates").glob("*"),
        *(ROOT / "tests" / "browser").glob("*.py"),
    ]:
        if path.suffix not in (".css", ".js", ".html", ".py"):
            continue
        for name in re.findall(
            r"[.#]([a-z][a-z0-9]*(?:[-_]+[a-z0-9]+)+)(?![\w(])", path.read_text(encoding="utf-8")
        ):
            if not name.startswith("jaxbook") and (name in files or name.split("-", 1)[-1] in files):
                used.add(name)
    for path in (ROOT / "jaxbook").rglob("*.py"):
        used |= set(re.findall(r"(?<![\w-])(?:bd|pst)-[a-z][\w-]*", path.read_text(encoding="utf-8")))
    assert used <= set(theme.NAMES), sorted(used - set(theme.NAMES))
