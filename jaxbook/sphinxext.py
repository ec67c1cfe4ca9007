"""The book's Sphinx extension: snippet cells that cannot lie.

- Every ``{code-cell}`` must ``:load:`` a file under ``snippets/``; a missing file, inline code, a
  syntax error or a malformed error declaration is reported at the page's line and the snippet's.
- The snippet and every project module it imports become Sphinx dependencies of the page, so an
  edit re-executes exactly the pages that use it; pages whose execution failed are re-read on the
  next build; a change of JAX version or device settings (``jaxbook_execution_key``) re-reads all,
  and so does an edit to any file of ``jaxbook/`` (the ``env_version`` is :func:`jaxbook.machinery_version`).
- Sphinx decides by modification time; :func:`unchanged_content` keeps a page that only looks
  newer (a ``touch``, a checkout, a save without edits) from being read and executed again: the
  page and every file it depends on are compared by content hash with the last successful read.
- Execution happens in the ``python3`` kernel from ``jaxbook/kernels`` (see :mod:`jaxbook.kernel`).
- Each cell is captioned with its snippet file; each page carries an environment stamp.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from html import escape
from pathlib import Path

from docutils import nodes
from sphinx.util import logging

from jaxbook import ROOT, book_root, machinery_version, nbadapter, runtime
from jaxbook.deps import project_dependencies
from jaxbook.snippet import SnippetError, display_path, parse_declaration

logger = logging.getLogger(__name__)

CELL_OPEN = re.compile(r"^(?P<fence>`{3,}|~{3,})\s*\{code-cell\}")
ANY_FENCE = re.compile(r"^(?P<fence>`{3,}|~{3,})")
OPTION = re.compile(r"^:(?P<key>[\w-]+):\s*(?P<value>.*)$")
YAML_LOAD = re.compile(r"^load:\s*(?P<value>.*)$")
YAML_TAGS = re.compile(r"^tags:\s*(?P<value>.*)$")
#: Cell tags with which MyST-NB publishes a cell that did not run under the contract: any
#: exception passes (raises-exception), or the code is shown without running (skip-execution).
UNCHECKED_TAGS = ("raises-exception", "skip-execution")
TOP_MATTER = re.compile(r"\A---\n(?P<body>.*?\n)---\n", re.S)


def _closes(line: str, fence: str) -> bool:
    """True if ``line`` closes a block opened with ``fence`` (same character, at least as long)."""
    text = line.strip()
    return text.startswith(fence) and not text.strip(fence[0])


class Cell:
    """A ``{code-cell}`` found in a page's source: where it is and what it loads."""

    def __init__(
        self,
        start: int,
        end: int,
        load: str | None,
        load_line: int,
        body: list[str],
        tags: tuple[str, int] | None = None,
    ):
        self.start, self.end = start, end  # 0-based line indexes of the fences
        self.load, self.load_line = load, load_line  # 1-based line of the :load: option
        self.body = body
        self.tags = tags  # the :tags: option's text and 1-based line, if the cell has one


def find_cells(lines: list[str]) -> list[Cell]:
    """Parse the code cells of a MyST page (fence, options, body) without executing anything."""
    cells, i = [], 0
    while i < len(lines):
        opened = CELL_OPEN.match(lines[i].strip())
        if not opened:
            other = ANY_FENCE.match(lines[i].strip())
            i += 1
            if other:  # skip another fence's body: an example of a cell is not a cell
                fence = other.group("fence")
                while i < len(lines) and not _closes(lines[i], fence):
                    i += 1
                i += 1
            continue
        fence = opened.group("fence")
        start, j = i, i + 1
        load, load_line, body, in_yaml, options_done, tags = None, 0, [], False, False, None
        while j < len(lines):
            text = lines[j].strip()
            if _closes(lines[j], fence):
                break
            if not options_done and text == "---" and not in_yaml:
                in_yaml = True
            elif in_yaml:
                if text == "---":
                    in_yaml, options_done = False, True
                elif YAML_LOAD.match(text):
                    load, load_line = YAML_LOAD.match(text).group("value").strip(), j + 1
                elif YAML_TAGS.match(text):
                    tags = YAML_TAGS.match(text).group("value"), j + 1
            elif not options_done and OPTION.match(text):
                found = OPTION.match(text)
                if found.group("key") == "load":
                    load, load_line = found.group("value").strip(), j + 1
                elif found.group("key") == "tags":
                    tags = found.group("value"), j + 1
            else:
                options_done = True
                if text:
                    body.append(lines[j])
            j += 1
        cells.append(Cell(start, j, load, load_line or start + 1, body, tags))
        i = j + 1
    return cells


def check_cell(page: Path, cell: Cell) -> tuple[list[Path], str | None]:
    """Return (the files the cell's snippet runs, None) for a valid cell, the snippet first and then
    the project modules it imports (:func:`jaxbook.deps.project_dependencies`), or ([], error)."""
    if cell.body:
        return [], (
            "a code cell must not contain inline code: put it in a file under "
            "snippets/ and load it with ':load: <path>'"
        )
    if not cell.load:
        return [], "a code cell must load a snippet: add ':load: <path to snippets/...py>'"
    path = (page.parent / cell.load).resolve()
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


def unchecked_tag(cell: Cell) -> str | None:
    """The first of :data:`UNCHECKED_TAGS` among the cell's tags, if any."""
    return next((tag for tag in UNCHECKED_TAGS if cell.tags and tag in cell.tags[0]), None)


def page_execution_settings(top_matter: str) -> list[tuple[str, int]]:
    """A problem, with its 1-based line, for each execution setting a page's top matter makes
    (``mystnb: {execution_allow_errors: true}`` would let any exception through): how pages run
    is the book's setting, in conf.py."""
    import yaml

    try:
        data = yaml.safe_load(top_matter) or {}
    except yaml.YAMLError:
        return []  # MyST reports malformed top matter itself
    settings = data.get("mystnb") if isinstance(data, dict) else None
    if not isinstance(settings, dict):
        return []
    lines = top_matter.split("\n")
    problems = []
    for key in settings:
        if str(key).startswith("execution"):
            line = next((i for i, text in enumerate(lines, 2) if text.strip().startswith(f"{key}:")), 1)
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
    env = app.env
    page = Path(env.doc2path(docname))
    lines = source[0].split("\n")
    cells = find_cells(lines)
    if not cells:
        return
    top = TOP_MATTER.match(source[0])
    if not top or not re.search(r"^file_format:\s*mystnb\s*$", top.group("body"), re.M):
        logger.error(
            "a page with code cells must start with the top matter "
            "'---\\nfile_format: mystnb\\nkernelspec: ...\\n---' (see docs/contributing.md)",
            location=(docname, 1),
        )
    for problem, line in page_execution_settings(top.group("body") if top else ""):
        logger.error(problem, location=(docname, line))
    changed = False
    for cell in cells:
        tag = unchecked_tag(cell)
        if tag:  # reported instead of anything else about the cell, which is not run
            files, location = [], cell.tags[1]
            error = (
                f"the tag {tag!r} would publish this cell without checking it (MyST-NB lets any "
                "exception through, or skips the run): declare an expected error in the snippet "
                "('# raises: ValueError', see docs/contributing.md)"
            )
        else:
            files, error = check_cell(page, cell)
            location = cell.load_line
        if error:
            logger.error(error, location=(docname, location))
            # Keep the build going (so every problem is reported at once) without executing it.
            lines[cell.start] = lines[cell.start].replace("{code-cell}", "text", 1)
            changed = True
            continue
        for dependency in files:
            env.note_dependency(str(dependency))
    if changed:
        source[0] = "\n".join(lines)


def on_env_get_outdated(app, env, added, changed, removed) -> list[str]:
    """Re-read pages whose last execution failed, so a failure is never cached as output; do not
    re-read pages whose files only look newer (:func:`unchanged_content`)."""
    from myst_nb.sphinx_ import NbMetadataCollector

    failed = []
    for docname, data in NbMetadataCollector.get_doc_data(env).items():
        exec_data = data.get("exec_data") or {}
        if exec_data.get("succeeded") is False and docname in env.found_docs:
            failed.append(docname)
    # The one place that relies on Sphinx internals: the sets passed to this event are the ones
    # Sphinx reads from afterwards (Sphinx 9 builders/__init__.py, Builder.read), so dropping a page
    # here undoes Sphinx's mtime decision; pages returned by any handler are still added after.
    # tests/test_rebuild.py::test_touching_files_executes_nothing fails if that ever changes.
    changed -= unchanged_content(env, changed)
    return failed


def _sha256(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def _inputs(env, docname: str) -> dict[str, str | None]:
    """Content hashes of a page's source and of every file Sphinx records as its dependency."""
    files = [Path(env.doc2path(docname)), *map(Path, env.dependencies.get(docname, ()))]
    return {str(path): _sha256(path) for path in files}


def unchanged_content(env, changed: set[str]) -> set[str]:
    """The pages in ``changed`` whose source and dependencies hold the same bytes as when they
    were last read (and executed successfully). Sphinx put them there for a newer mtime only:
    a page it must re-read for another reason (no doctree, re-read always, failed execution,
    a config change, which marks every page as added) is never among them."""
    from myst_nb.sphinx_ import NbMetadataCollector

    recorded = getattr(env, "jaxbook_inputs", {})
    nb_data = NbMetadataCollector.get_doc_data(env)
    same = set()
    for docname in changed:
        before = recorded.get(docname)
        exec_data = nb_data.get(docname, {}).get("exec_data") or {}
        if (
            not before
            or docname in env.reread_always
            or exec_data.get("succeeded") is False
            or not (Path(env.doctreedir) / f"{docname}.doctree").is_file()
        ):
            continue
        if None not in before.values() and _inputs(env, docname) == before:
            same.add(docname)
    return same


def on_doctree_read_record_inputs(app, doctree) -> None:
    """Remember what this read of the page was made from (see :func:`unchanged_content`)."""
    env = app.env
    if not hasattr(env, "jaxbook_inputs"):
        env.jaxbook_inputs = {}
    env.jaxbook_inputs[env.docname] = _inputs(env, env.docname)


def on_env_merge_info(app, env, docnames, other) -> None:
    """Parallel read: bring the workers' records into the main environment."""
    if not hasattr(env, "jaxbook_inputs"):
        env.jaxbook_inputs = {}
    recorded = getattr(other, "jaxbook_inputs", {})
    env.jaxbook_inputs.update({d: recorded[d] for d in docnames if d in recorded})


def on_env_purge_doc(app, env, docname) -> None:
    getattr(env, "jaxbook_inputs", {}).pop(docname, None)


def on_env_before_read_docs(app, env, docnames: list[str]) -> None:
    """Measure the execution environment once per build that executes anything."""
    if docnames or not getattr(env, "jaxbook_stamp", None):
        result = subprocess.run(
            [sys.executable, "-m", "jaxbook.runtime"],
            capture_output=True,
            text=True,
            check=True,
            cwd=book_root(),
        )
        env.jaxbook_stamp = json.loads(result.stdout)


def on_doctree_read(app, doctree) -> None:
    """Caption each snippet cell with the file it came from."""
    page = Path(app.env.doc2path(app.env.docname))
    for cell in doctree.findall(nodes.container):
        load = cell.get("nb_element") == "cell_code" and cell.get("cell_metadata", {}).get("load")
        if not load:
            continue
        name = display_path((page.parent / load).resolve())
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
    """Point Jupyter at the book's kernel and make the project importable in it."""
    os.environ["JUPYTER_PATH"] = os.pathsep.join(
        [str(ROOT / "jaxbook")] + [p for p in os.environ.get("JUPYTER_PATH", "").split(os.pathsep) if p]
    )
    os.environ["JAXBOOK_ROOT"] = str(Path(app.srcdir).resolve())
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    )
    # The kernel compares each snippet's output with its .out file unless a throwaway test book
    # turns it off (tests/helpers.py); the book's conf.py never does.
    os.environ["JAXBOOK_EXPECTED_OUTPUTS"] = "1" if config.jaxbook_expected_outputs else "0"
    runtime.configure()
    nbadapter.install()  # each execute request names its snippet file


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


def setup(app):
    app.add_config_value("jaxbook_execution_key", runtime.execution_key(), "env")
    app.add_config_value("jaxbook_expected_outputs", True, "env")
    app.connect("config-inited", on_config_inited)
    app.connect("builder-inited", on_builder_inited)
    app.connect("source-read", on_source_read)
    app.connect("env-get-outdated", on_env_get_outdated)
    app.connect("env-before-read-docs", on_env_before_read_docs)
    app.connect("doctree-read", on_doctree_read)
    app.connect("doctree-read", on_doctree_read_record_inputs)
    app.connect("env-merge-info", on_env_merge_info)
    app.connect("env-purge-doc", on_env_purge_doc)
    app.connect("html-page-context", on_html_page_context)
    app.add_css_file("jaxbook.css")
    app.add_js_file("search-summary.js")
    return {
        "version": "1",
        "parallel_read_safe": True,
        "parallel_write_safe": True,
        "env_version": machinery_version(),  # an edit to jaxbook/ re-executes every page
    }
