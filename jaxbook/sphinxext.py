"""The book's Sphinx extension: snippet cells that cannot lie.

- **Cells.** Every ``{code-cell}`` (as :func:`jaxbook.pages.read` finds them, with MyST's own
  parser) must ``:load:`` a file under ``snippets/``; a missing file, inline code, a syntax error,
  a malformed declaration or a tag that would skip the contract is reported at the page's line.
  The snippet, every project module it imports and its ``.out`` file become Sphinx dependencies of
  the page, so an edit to any of them reads the page again.
- **Execution.** MyST-NB does not run the pages: the one use of its internals,
  :func:`install_client`, gives it a client that takes each page's outputs from the execution
  store, executing the page only when the store has no result for its files, machinery and
  environment (:mod:`jaxbook.execute`, :mod:`jaxbook.store`). Reading a page again costs no
  execution; ``make html`` fills the store on every core before Sphinx starts.
- **Verdicts.** Each cell's result is checked (:mod:`jaxbook.verdict`): a broken contract, a
  missing ``.out`` file or an output that differs is one warning at the cell's line, with the
  command that fixes or accepts it; the details go to ``_build/reports/<page>.txt``, never into the
  published site. A build lists every problem at its end and writes them to
  ``_build/failures.json`` (``make outputs FAILED=1``). A page with a problem is read again by the
  next build.
- **Captions and stamp.** Each cell is captioned with its snippet file; each page carries the
  environment that produced its outputs.
"""

from __future__ import annotations

import json
import platform
import subprocess
import sys
import time
from html import escape
from pathlib import Path

from docutils import nodes
from sphinx.util import logging

from jaxbook import ROOT, book_root, fingerprint, pages
from jaxbook.accept import FAILURES
from jaxbook.deps import project_dependencies
from jaxbook.files import write_atomic
from jaxbook.outputs import expected_path
from jaxbook.snippet import SnippetError, display_path, parse_declaration

logger = logging.getLogger(__name__)

#: Cell tags with which MyST-NB publishes a cell that did not run under the contract: any
#: exception passes (raises-exception), or the code is shown without running (skip-execution).
UNCHECKED_TAGS = ("raises-exception", "skip-execution")
#: What the book's kernel (IPython's) says of its language, as a notebook's metadata keeps it.
LANGUAGE_INFO = {
    "name": "python",
    "pygments_lexer": "ipython3",
    "codemirror_mode": {"name": "ipython", "version": 3},
    "file_extension": ".py",
    "mimetype": "text/x-python",
    "nbconvert_exporter": "python",
}


def check_cell(page: Path, cell: pages.Cell) -> tuple[list[Path], str | None]:
    """Return (the files the cell's snippet runs, None) for a valid cell, the snippet first and then
    the project modules it imports (:func:`jaxbook.deps.project_dependencies`), or ([], error)."""
    if cell.problem:
        return [], f"the cell's options cannot be read: {cell.problem}"
    if cell.body:
        return [], (
            "a code cell must not contain inline code: put it in a file under "
            "snippets/ and load it with ':load: <path>'"
        )
    if not cell.load:
        return [], "a code cell must load a snippet: add ':load: <path to snippets/...py>'"
    path = pages.loaded(page, cell.load)
    if not path.is_relative_to(book_root() / "snippets"):
        return [], f"':load: {cell.load}' is outside snippets/: every code cell comes from snippets/"
    if not path.is_file():
        return [], f"snippet file not found: {display_path(path)} (from ':load: {cell.load}')"
    try:
        source = path.read_text(encoding="utf-8")
        compile(source, display_path(path), "exec")
        parse_declaration(source, display_path(path))
        files = project_dependencies(path, book_root())
    except SyntaxError as exc:
        return [], f"{display_path(exc.filename or path)}:{exc.lineno}: syntax error: {exc.msg}"
    except SnippetError as exc:
        return [], str(exc)
    return files, None


def unchecked_tag(cell: pages.Cell) -> str | None:
    """The first of :data:`UNCHECKED_TAGS` among the cell's tags, if any."""
    return next((tag for tag in UNCHECKED_TAGS if tag in cell.tags), None)


def page_execution_settings(page: pages.Page) -> list[tuple[str, int]]:
    """A problem, with its 1-based line, for each execution setting a page's top matter makes
    (``mystnb: {execution_allow_errors: true}`` would let any exception through): how pages run
    is the book's setting, in conf.py."""
    settings = page.top_matter.get("mystnb")
    if not isinstance(settings, dict):
        return []
    problems = []
    for key in settings:
        if str(key).startswith("execution"):
            line = next(
                (i for i, text in enumerate(page.top_matter_lines, 2) if text.strip().startswith(f"{key}:")),
                1,
            )
            problems.append(
                (
                    f"the page sets '{key}' under 'mystnb': pages run as conf.py says, every one "
                    "under the snippet contract; remove it",
                    line,
                )
            )
    return problems


def on_source_read(app, docname: str, source: list[str]) -> None:
    """Validate the page's code cells and record what the page depends on."""
    path = Path(app.env.doc2path(docname))
    page = pages.parse(source[0], path)
    if not page.cells:
        return
    env = app.env
    found = env.jaxbook_problems.setdefault(docname, [])

    def error(message: str, line: int) -> None:
        """Report a problem of the page's source; it also makes the next build read the page
        again (the fix may be in a snippet the page could not depend on: missing, unreadable)."""
        logger.error(message, location=(docname, line))
        found.append((line, message, None, "source", ()))

    if not page.is_notebook:
        error(
            "a page with code cells must start with the top matter "
            "'---\\nfile_format: mystnb\\nkernelspec: ...\\n---' (see docs/contributing.md)",
            1,
        )
    for problem, line in page_execution_settings(page):
        error(problem, line)
    lines = source[0].split("\n")
    changed = False
    for cell in page.cells:
        tag = unchecked_tag(cell)
        if tag:  # reported instead of anything else about the cell, which is not run
            files, location = [], cell.tags_line
            problem = (
                f"the tag {tag!r} would publish this cell without checking it (MyST-NB lets any "
                "exception through, or skips the run): declare an expected error in the snippet "
                "('# raises: ValueError', see docs/contributing.md)"
            )
        else:
            files, problem = check_cell(path, cell)
            location = cell.load_line
        if problem:
            error(problem, location)
            # Keep the build going (so every problem is reported at once) without executing it.
            lines[cell.line - 1] = lines[cell.line - 1].replace(pages.CODE_CELL, "text", 1)
            changed = True
            continue
        for dependency in files:
            app.env.note_dependency(str(dependency))
        app.env.note_dependency(str(expected_path(files[0])))  # a new .out is checked again
    if changed:
        source[0] = "\n".join(lines)


# --- execution and verdicts ---------------------------------------------------------------------

_app = None  # this process's Sphinx application (one per process; parallel workers are forks)
_executor = None


def executor():
    """This process's executor: a kernel started on first need, kept for the next pages."""
    global _executor
    if _executor is None:
        import atexit

        from jaxbook.execute import Executor

        _executor = Executor(book_root())
        atexit.register(_executor.close)
    return _executor


def install_client() -> None:
    """Make MyST-NB take each page's outputs from the execution store (idempotent).

    The one place that relies on MyST-NB internals: ``myst_nb.sphinx_.Parser.parse`` opens
    ``create_client(notebook, path, nb_config, logger, read_fmt)`` (a name of that module) and
    renders the outputs that the client leaves in ``notebook``; a client is a subclass of
    ``myst_nb.core.execute.NotebookClientBase`` that fills them in ``start_client``.
    :func:`check_myst_nb` checks these assumptions first: an upgrade of MyST-NB that changes one
    fails the build, instead of letting MyST-NB execute the pages itself. (Upstream: MyST-NB's own
    execution writes tracebacks into the published folder: docs/upstream.md, MyST-NB 2.)
    """
    import myst_nb.sphinx_
    from myst_nb.core.execute import NotebookClientBase

    check_myst_nb(myst_nb.sphinx_, NotebookClientBase)
    original = myst_nb.sphinx_.create_client
    if getattr(original, "jaxbook", False):
        return

    class StoreClient(NotebookClientBase):
        def start_client(self):
            fill_outputs(self)

    def create_client(notebook, source, nb_config, logger, read_fmt=None):
        if any(cell.get("metadata", {}).get("load") for cell in notebook.cells):
            return StoreClient(notebook, Path(source), nb_config, logger)
        return original(notebook, source, nb_config, logger, read_fmt)

    create_client.jaxbook = True
    myst_nb.sphinx_.create_client = create_client


#: The parameters of ``myst_nb.sphinx_.create_client`` that :func:`install_client` replaces.
CREATE_CLIENT_PARAMETERS = ["notebook", "source", "nb_config", "logger", "read_fmt"]


def check_myst_nb(module, client_base) -> None:
    """Raise ``RuntimeError`` unless MyST-NB (``module``: ``myst_nb.sphinx_``; ``client_base``:
    ``NotebookClientBase``) still works as :func:`install_client` assumes: ``Parser.parse`` looks
    up the module's ``create_client`` (with the parameters of :data:`CREATE_CLIENT_PARAMETERS`)
    when it opens a client, and entering a client calls its ``start_client``."""
    import inspect

    def changed(what: str) -> RuntimeError:
        return RuntimeError(
            f"MyST-NB changed: {what}; jaxbook.sphinxext.install_client relies on it to give the "
            "pages their outputs from the execution store (review it, and docs/upstream.md)"
        )

    create_client = getattr(module, "create_client", None)
    if not callable(create_client):
        raise changed(f"{module.__name__} has no function create_client")
    parameters = list(inspect.signature(create_client).parameters)
    if parameters != CREATE_CLIENT_PARAMETERS:
        raise changed(f"create_client takes {parameters}, not {CREATE_CLIENT_PARAMETERS}")
    parse = getattr(getattr(module, "Parser", None), "parse", None)
    if "create_client" not in getattr(getattr(parse, "__code__", None), "co_names", ()):
        raise changed("Parser.parse no longer opens its client with the module's create_client")
    enter = getattr(client_base, "__enter__", None)
    if "start_client" not in getattr(getattr(enter, "__code__", None), "co_names", ()):
        raise changed(f"{client_base.__name__}.__enter__ no longer calls start_client")


def fill_outputs(client) -> None:
    """Give the client's notebook its outputs from the store, and report each cell's problems."""
    from nbformat import from_dict

    from jaxbook import verdict

    env, root = _app.env, book_root()
    docname = env.docname
    page = client.path.resolve()
    start = time.perf_counter()
    found: list[tuple[int, verdict.Problem]] = []
    try:
        result = executor().page(page)
    except Exception as exc:  # noqa: BLE001 - the kernel died or could not start: report it here
        logger.warning(f"the page could not be executed: {exc}", location=(docname, 1), type="jaxbook")
        env.jaxbook_problems[docname] = [(1, f"the page could not be executed: {exc}", None, "execution", ())]
        return
    # What a kernel's reply would have told MyST-NB: the cells' language, for their lexer.
    client.notebook.metadata["language_info"] = LANGUAGE_INFO | {"version": platform.python_version()}
    count = 0
    for index, cell in enumerate(client.notebook.cells):
        load = cell.get("metadata", {}).get("load")
        if cell.get("cell_type") != "code" or not load:
            continue
        name = pages.loaded(page, load).relative_to(root).as_posix()
        outcome = result.cell(name)
        count += 1
        cell.outputs = [from_dict(output) for output in outcome.outputs]
        cell.execution_count = count
        problem = verdict.verdict(
            outcome, root, check_output=_app.config.jaxbook_expected_outputs, inputs=result.inputs
        )
        if problem is not None:
            found.append((client.cell_line(index), problem))
    if result.page in executor().executed:
        from jaxbook.execute import executed_line

        logger.info(executed_line(result))
    report(docname, found)
    client.exec_metadata = {
        "mtime": time.time(),
        "runtime": result.seconds or time.perf_counter() - start,
        "method": "jaxbook store",
        "succeeded": not found,
        "error": None,
        "traceback": None,
    }


def report(docname: str, found: list) -> None:
    """One warning per problem at its cell's line; the details in the page's report file."""
    env = _app.env
    path = Path(_app.outdir).parent / "reports" / f"{docname}.txt"
    source = [p for p in env.jaxbook_problems.get(docname, []) if p[3] == "source"]  # on_source_read's
    env.jaxbook_problems[docname] = source + [
        (line, p.summary, p.snippet, p.kind, p.changed) for line, p in found
    ]
    if not found:
        path.unlink(missing_ok=True)
        return
    for line, problem in found:
        logger.warning(problem.summary, location=(docname, line), type="jaxbook", subtype=problem.kind)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "\n\n".join(f"{env.doc2path(docname)}:{line}\n{p.details}" for line, p in found) + "\n",
        encoding="utf-8",
    )


def on_env_get_outdated(app, env, added, changed, removed) -> list[str]:
    """Read again the pages whose last reading found a problem: a failure is never cached."""
    return [
        d for d, problems in getattr(env, "jaxbook_problems", {}).items() if problems and d in env.found_docs
    ]


def on_env_updated(app, env) -> list[str]:
    """In a preview (``make page``), read a page again only when it changed: Sphinx marks a page
    whose toctree names a page left out of the preview to be read on every build, in case that
    page appears; a preview of other pages changes ``include_patterns``, which reads every page
    anyway."""
    if app.config.jaxbook_preview:
        env.reread_always.clear()
    return []


def on_env_merge_info(app, env, docnames, other) -> None:
    """Parallel read: bring the workers' verdicts into the main environment."""
    found = getattr(other, "jaxbook_problems", {})
    env.jaxbook_problems = getattr(env, "jaxbook_problems", {})
    env.jaxbook_problems.update({d: found[d] for d in docnames if d in found})


def on_env_purge_doc(app, env, docname) -> None:
    getattr(env, "jaxbook_problems", {}).pop(docname, None)


def on_build_finished(app, exception) -> None:
    """List every problem of the build, one line each, with the command that fixes or accepts it
    (and one per changed helper), and keep the failing snippets for ``make outputs FAILED=1``."""
    from jaxbook.verdict import Problem, helper_commands

    problems = [
        (docname, line, Problem(snippet, kind, summary, "", tuple(changed)))
        for docname, found in sorted(getattr(app.env, "jaxbook_problems", {}).items())
        for line, summary, snippet, kind, changed in found
    ]
    build = Path(app.outdir).parent
    failures = build / FAILURES.name
    outputs_to_accept = sorted({p.snippet for *_, p in problems if p.kind in ("differs", "missing")})
    failures.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(failures, json.dumps({"snippets": outputs_to_accept}, indent=1))
    if not problems:
        return
    others = getattr(app, "_warncount", len(problems)) - len(problems)  # Sphinx's own count
    logger.info("")
    logger.info(
        f"{len(problems)} problem(s) with the book's cells"
        + (f", and {others} other warning(s) above" if others > 0 else "")
        + ":",
        color="red",
    )
    for docname, line, problem in problems:
        logger.info(f"  {app.env.doc2path(docname, False)}:{line}: {problem.summary}")
    for command in helper_commands([p for *_, p in problems], book_root()):
        logger.info(f"  {command}")
    if len(outputs_to_accept) > 1:
        logger.info(f"  to accept all {len(outputs_to_accept)} outputs listed above: `make outputs FAILED=1`")
    if outputs_to_accept:
        logger.info("  then review: git status, git diff (make outputs prints what it wrote)")
    reports = sorted({docname for docname, *_ in problems})
    where = ", ".join(display_path(build / "reports" / f"{d}.txt") for d in reports)
    logger.info(f"  diffs and tracebacks: {where}")


def on_env_before_read_docs(app, env, docnames: list[str]) -> None:
    """Measure the execution environment once per build that reads anything."""
    if not hasattr(env, "jaxbook_problems"):
        env.jaxbook_problems = {}
    if docnames or not getattr(env, "jaxbook_stamp", None):
        result = subprocess.run(
            [sys.executable, "-m", "jaxbook.runtime"],
            capture_output=True,
            text=True,
            check=True,
            cwd=book_root(),
        )
        env.jaxbook_stamp = json.loads(result.stdout)


# --- captions, stamp, configuration -------------------------------------------------------------


def on_doctree_read(app, doctree) -> None:
    """Caption each snippet cell with the file it came from."""
    page = Path(app.env.doc2path(app.env.docname))
    for cell in doctree.findall(nodes.container):
        load = cell.get("nb_element") == "cell_code" and cell.get("cell_metadata", {}).get("load")
        if not load:
            continue
        name = display_path(pages.loaded(page, load))
        test_id = name.removeprefix("snippets/")
        html = (
            f'<div class="jaxbook-snippet"><span class="jaxbook-snippet-file">{escape(name)}</span>'
            f'<span class="jaxbook-snippet-test">tested by '
            f"<code>test_snippet[{escape(test_id)}]</code></span></div>"
        )
        cell.insert(0, nodes.raw("", html, format="html"))
        cell["classes"].append("jaxbook-cell")


def on_html_page_context(app, pagename, templatename, context, doctree) -> None:
    """Stamp every page with the environment that produced its outputs."""
    stamp = getattr(app.env, "jaxbook_stamp", None)
    if not stamp or "body" not in context:
        return
    backend = stamp["backend"]
    if backend != "cpu":  # an accelerator's kind and matmul precision decide its last digits
        backend += f" backend ({stamp['device_kind']}, matmul precision {stamp['matmul_precision']})"
    else:
        backend += " backend"
    text = (
        f"Outputs on this page were produced when the site was built, by JAX {stamp['jax']} "
        f"on the {backend} with {stamp['devices']} devices "
        f"(CPU: {stamp['cpu']}; Python {stamp['python']}); on another CPU, printed floats "
        "can differ in their last digits."
    )
    stamp_html = f'<p class="jaxbook-stamp">{escape(text)}</p>\n'
    body = context["body"]
    end = body.find("</h1>")
    # Right under the page title when there is one, else at the top.
    if end == -1:
        context["body"] = stamp_html + body
    else:
        end += len("</h1>")
        context["body"] = body[:end] + "\n" + stamp_html + body[end:]


def on_config_inited(app, config) -> None:
    """Remember the application and the book's root; let MyST-NB read outputs from the store."""
    global _app
    import os

    _app = app
    os.environ["JAXBOOK_ROOT"] = str(Path(app.srcdir).resolve())
    install_client()


def compiled_templates(doctreedir: str | Path) -> Path:
    """Where a build keeps the theme's compiled templates: one folder per Jinja version, so that
    code compiled by another version is never loaded."""
    import jinja2

    return Path(doctreedir) / f"jinja-{jinja2.__version__}"


def on_builder_inited(app) -> None:
    """Keep the theme's compiled templates between builds, in :func:`compiled_templates` (Jinja's
    own bytecode cache: an entry is used only while its template's source is unchanged), so that a
    rebuild does not compile them again (about 0.2 s of a no-op rebuild)."""
    import jinja2

    environment = getattr(getattr(app.builder, "templates", None), "environment", None)
    if environment is None:
        return  # a builder without Jinja templates
    folder = compiled_templates(app.doctreedir)
    folder.mkdir(parents=True, exist_ok=True)
    environment.bytecode_cache = jinja2.FileSystemBytecodeCache(str(folder))


#: Lines other extensions print on every build that tell a contributor nothing, by logger: the
#: whole configuration of MyST and MyST-NB, the folder of MyST-NB's execution cache (which the book
#: does not use: outputs come from the store) and each static template Sphinx renders. ``-v``
#: shows them again; warnings are never filtered.
QUIET = {
    "sphinx.myst_parser.sphinx_ext.main": ("myst v%s:",),
    "sphinx.myst_nb.sphinx_ext": ("myst-nb v%s:", "Using jupyter-cache at:"),
    "sphinx.sphinx.util.fileutil": ("Writing evaluated template result",),
}


def quiet_filter(texts: tuple[str, ...]):
    """A logging filter that drops the INFO records whose message contains one of ``texts``."""
    import logging as std_logging

    def keep(record) -> bool:
        return record.levelno > std_logging.INFO or not any(t in str(record.msg) for t in texts)

    return keep


def quiet_libraries() -> None:
    """Give the root logger, if it has no handler yet, the one Python falls back on (WARNING and
    above, message only, to stderr), so that a library's ``logging.basicConfig`` finds it
    configured and changes nothing. accessible-pygments 0.0.5, which provides the theme's code
    styles, calls it with INFO when it is imported (at the latest when the build finishes), and
    every library's INFO records reached the build's output: about 80 lines from fontTools on a
    build that subsets the icon fonts (jaxbook/weight.py). Upstream: docs/upstream.md,
    accessible-pygments 1."""
    import logging as std_logging

    root = std_logging.getLogger()
    if not root.handlers:
        handler = std_logging.StreamHandler()
        handler.setLevel(std_logging.WARNING)
        root.addHandler(handler)


def setup(app):
    quiet_libraries()
    if app.verbosity == 0:
        import logging as std_logging

        for name, texts in QUIET.items():
            std_logging.getLogger(name).addFilter(quiet_filter(texts))
    # What the execution store keys by besides the pages' files: when it changes, every page is
    # rendered again from its new results (a new lock, JAX setting or CPU re-executes them all).
    app.add_config_value("jaxbook_environment", fingerprint.environment(), "env")
    app.add_config_value("jaxbook_expected_outputs", True, "env")
    app.add_config_value("jaxbook_preview", False, "env", types=(bool, int))
    app.connect("config-inited", on_config_inited)
    app.connect("builder-inited", on_builder_inited)
    app.connect("source-read", on_source_read)
    app.connect("env-get-outdated", on_env_get_outdated)
    app.connect("env-before-read-docs", on_env_before_read_docs)
    app.connect("doctree-read", on_doctree_read)
    app.connect("env-merge-info", on_env_merge_info)
    app.connect("env-updated", on_env_updated)
    app.connect("env-purge-doc", on_env_purge_doc)
    app.connect("html-page-context", on_html_page_context)
    app.connect("build-finished", on_build_finished)
    app.add_css_file("jaxbook.css")
    app.add_js_file("search-summary.js")
    return {
        "version": "1",
        "parallel_read_safe": True,
        "parallel_write_safe": True,
        # its code and the kernel's: an edit to either reads every page again
        "env_version": int(fingerprint.machinery(fingerprint.EXTENSION)[:15], 16),
    }


__all__ = ["ROOT", "check_cell", "compiled_templates", "install_client", "on_source_read", "setup"]
