"""Offer each executed page as a notebook that runs on a reader's machine, outside the repository.

The reader's notebook (``_sources/<page>.ipynb``) is the site's, cells and outputs unchanged, plus
what the build's kernel provides: a first cell that sets the 8 emulated devices (or the reader's
GPU or TPU), ``%%writefile`` cells for the helper modules a cell imports, the ``raises-exception``
tag where a snippet declares ``# raises:``, and cell numbers in place of snippet file names; its
snippet cells show what the page shows (:func:`jaxbook.reader.reader_view`: no declaration lines,
and tracebacks counting the lines shown). A
practice page also runs the problem's tests against the reader's attempt, as ``make check`` does.
MyST directives become what Jupyter renders (``{only} html`` is the site's alone, ``{only}
notebook`` the notebook's); Markdown the notebook cannot show is a warning at its line
(:class:`NotebookError`). Added cells carry ``metadata.jaxbook.role`` (``setup``, ``helper``,
``attempt``, ``check``).
"""

from __future__ import annotations

import ast
import json
import posixpath
import re
import string
import sys
from html import escape
from importlib.metadata import metadata, version
from pathlib import Path

from docutils import nodes
from sphinx.util import logging
from sphinx.util.osutil import relative_uri

from jaxbook import book_root, pages, runtime
from jaxbook.deps import project_dependencies, script_imports
from jaxbook.reader import reader_view
from jaxbook.snippet import display_path
from jaxbook.sphinxext import chip
from jaxbook.sphinxext.chip import ChipError
from jaxbook.sphinxext.stamp import download
from jaxbook.statement import REQUIREMENTS_INTRO, requirements
from jaxbook.upstream import myst_parser, mystnb, theme

#: pip names of imported modules where they differ (None: installed with JAX). Other third-party
#: modules are listed under their own name.
PIP_NAMES = {"numpy": None, "jaxlib": None, "PIL": "pillow", "yaml": "pyyaml"}
#: Packages that JAX imports only when a function is called.
CALLS_NEEDING = {"visualize_array_sharding": "rich", "visualize_sharding": "rich"}
logger = logging.getLogger(__name__)
#: A Markdown link to a page of the book: ``](relative/path.md)`` or ``](path.md#anchor)``.
PAGE_LINK = re.compile(r"\]\((?P<path>(?![a-z][a-z0-9+.-]*:)[^\s()#<>]+)\.md(?P<anchor>#[^\s()]*)?\)")


def offer(builder, pagename: str) -> dict | None:
    """Write the reader's notebook of a page MyST-NB executed in this build and return it; None
    (and no notebook) for a page that is not one, or whose Markdown the notebook cannot show (it
    never deletes the executed notebook of a page that stopped being one: such a page offers none)."""
    env, config = builder.env, builder.config
    target = Path(builder.outdir) / "_sources" / f"{pagename}.ipynb"
    executed = mystnb.executed_notebook(env, pagename)
    if executed is None:
        target.unlink(missing_ok=True)
        return None
    page = Path(env.doc2path(pagename)).resolve()
    notebook = json.loads(executed.read_text(encoding="utf-8"))
    try:
        reader = reader_notebook(notebook, page, book_root(), config.nb_merge_streams, config.html_baseurl)
    except NotebookError as error:  # a warning: the strict build fails, and reports every page
        logger.warning(error.detail, location=(pagename, error.line), type="jaxbook", subtype="download")
        target.unlink(missing_ok=True)
        return None
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(reader, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return reader


def download_line(href: str, pagename: str, reader: dict) -> str:
    """The HTML of the page note's first line: the notebook to download and what it runs with."""
    sentence = escape(requirements_sentence(reader))
    return (
        f'<p class="jaxbook-download">Run this page yourself: download '
        f'<a href="{escape(href)}" download>{escape(Path(pagename).name)}.ipynb</a>. '
        f"{re.sub(r'`([^`]+)`', r'<code>\1</code>', sentence)}</p>\n"
    )


def visit_download(translator, node) -> None:
    """Render the page note's download (:class:`jaxbook.sphinxext.stamp.download`): write the
    reader's notebook, then offer it, in the process that writes the page."""
    builder = translator.builder
    pagename = builder.current_docname
    reader = offer(builder, pagename)
    if reader is not None:
        href = relative_uri(builder.get_target_uri(pagename), f"_sources/{pagename}.ipynb")
        translator.body.append(download_line(href, pagename, reader))
    raise nodes.SkipNode


def on_html_page_context(app, pagename, templatename, context, doctree) -> None:
    """Give the theme's download menu the notebook the page's note offers (written when the note
    was rendered, just before); a page without a note offers none."""
    if doctree is None:
        return
    target = Path(app.outdir) / "_sources" / f"{pagename}.ipynb"
    if next(doctree.findall(download), None) is None:
        target.unlink(missing_ok=True)
    elif target.is_file():
        theme.offer_notebook(context, f"{pagename}.ipynb")


# -- the reader's notebook ------------------------------------------------------------------------


def reader_notebook(
    notebook: dict, page: Path, root: Path, merge_streams: bool = True, site: str = ""
) -> dict:
    """The executed ``notebook`` of ``page`` as a notebook that runs outside the repository;
    ``site``: the base URL of the published book ("" in a local build, see :func:`page_links`)."""
    problem = practice_problem(page, root)
    docname = page.relative_to(root).with_suffix("").as_posix()
    cells: list[dict] = []
    written: set[Path] = set()
    for cell in notebook["cells"]:
        if cell["cell_type"] == "markdown":
            for added in markdown_cells(source(cell), page, problem):
                if added["cell_type"] == "markdown":
                    added["source"] = page_links(added["source"], docname, site)
                cells.append(added)
            continue
        cell["source"] = source(cell)
        if merge_streams:
            cell["outputs"] = without_merged_streams(cell["outputs"])
        load = cell.get("metadata", {}).get("load")
        if load:
            snippet = pages.loaded(page, load)
            helpers = [p for p in project_dependencies(snippet, root)[1:] if p not in written]
            cells += helper_cells(helpers, root, "helper", beside=set(script_imports(snippet, root)))
            written.update(helpers)
            # as the page shows it, the contract's lines left out: the text the kernel ran, so its
            # tracebacks already count these lines
            view = reader_view(cell["source"], display_path(snippet))
            cell["source"] = view.source
            if view.raises:
                tags = cell["metadata"].setdefault("tags", [])
                if "raises-exception" not in tags:
                    tags.append("raises-exception")
        cells.append(cell)
    if problem is not None:
        cells += run_tests_cells(problem, root, written)
    title = 0
    if cells and cells[0]["cell_type"] == "markdown" and cells[0]["source"].startswith("# "):
        heading, _, rest = cells[0]["source"].partition("\n")
        cells[0:1] = [markdown(heading)] + ([markdown(rest)] if rest.strip() else [])
        title = 1
    cells[title:title] = setup_cells(cells)
    number_cells(cells, page, root)
    notebook = dict(notebook, cells=cells)
    metadata = {k: v for k, v in notebook["metadata"].items() if k not in ("source_map", "file_format")}
    metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    notebook["metadata"] = metadata
    notebook.setdefault("nbformat", 4)
    notebook["nbformat_minor"] = max(notebook.get("nbformat_minor", 0), 5)
    for number, cell in enumerate(cells):
        cell["id"] = f"cell-{number}"
    return notebook


def number_cells(cells: list[dict], page: Path, root: Path) -> None:
    """Number the code cells as a run from the top does (``In [1]`` is the set-up), and name a
    snippet cell in its outputs as IPython does (``Cell In[12]``), not by its file, which the reader
    lacks (helper modules keep their names: the notebook writes them)."""
    code_cells = [cell for cell in cells if cell["cell_type"] == "code"]
    for count, cell in enumerate(code_cells, 1):
        cell["execution_count"] = count
        load = cell.get("metadata", {}).get("load")
        if not load:
            continue
        name = pages.loaded(page, load).relative_to(root).as_posix()
        for output in cell.get("outputs", []):
            if "execution_count" in output:
                output["execution_count"] = count
            for key in {"text", "traceback", "evalue"} & output.keys():
                output[key] = json.loads(json.dumps(output[key]).replace(name, f"Cell In[{count}]"))


def page_links(text: str, docname: str, site: str) -> str:
    """``text`` with its links to pages of the book (``](../guide/jit.md#anchor)``, relative to the
    page ``docname``) pointing at those pages on the site: under ``site``, the published book's base
    URL, or (a local build) relative to the notebook's place, ``_sources/<docname>.ipynb``."""

    def link(match: re.Match) -> str:
        target = posixpath.normpath(posixpath.join(posixpath.dirname(docname), match.group("path")))
        anchor = match.group("anchor") or ""
        if site:
            return f"]({site.rstrip('/')}/{target}.html{anchor})"
        here = posixpath.join("_sources", posixpath.dirname(docname))
        return f"]({posixpath.relpath(f'{target}.html', here)}{anchor})"

    return PAGE_LINK.sub(link, text)


def practice_problem(page: Path, root: Path) -> Path | None:
    """The folder of the practice problem whose statement is ``page``, if it is one."""
    folder = page.with_suffix("")
    is_problem = page.is_relative_to(root / "practice") and (folder / "starter.py").is_file()
    return folder if is_problem else None


def source(cell: dict) -> str:
    text = cell["source"]
    return text if isinstance(text, str) else "".join(text)


def markdown(text: str) -> dict:
    return {"cell_type": "markdown", "metadata": {}, "source": text.strip("\n")}


def code(text: str, role: str, **metadata) -> dict:
    return {
        "cell_type": "code",
        "execution_count": None,
        "outputs": [],
        "metadata": {"jaxbook": {"role": role}, **metadata},
        "source": text.strip("\n"),
    }


#: The reader's set-up cell: the book's JAX settings, its emulated CPU devices unless the reader
#: chooses the machine's own, and then a hint after a mesh's device-count error.
SETUP = string.Template(r'''import math
import os
import re
import sys

# "cpu": $count emulated CPU devices, as the book was built (its outputs);
# "own": this machine's GPU or TPU (outputs can differ)
DEVICES = "cpu"

settings = {
$other}
if DEVICES == "cpu":
    settings.update({
$devices    })
changed = any(os.environ.get(k) != v for k, v in settings.items())
if "jax" in sys.modules and changed:
    raise RuntimeError("JAX is already imported: restart the kernel, "
                       "then run this cell first")
os.environ.update(settings)
if DEVICES == "own":
    def needs_devices(shell, kind, error, tb, tb_offset=None):
        """After a mesh's device-count error, say how to get the devices."""
        shell.showtraceback((kind, error, tb), tb_offset=tb_offset)
        pattern = r"Number of devices (\d+) must be >= the product of mesh_shape \((.*?)\)"
        found = re.search(pattern, str(error))
        if found:
            needed = math.prod(int(n) for n in found[2].split(",") if n.strip())
            print(f"This cell needs {needed} devices and JAX sees {found[1]}: set "
                  'DEVICES = "cpu" in the first cell, restart the kernel and run '
                  "again to emulate $count CPU devices.")

    get_ipython().set_custom_exc((ValueError,), needs_devices)''')


def setup_cells(cells: list[dict]) -> list[dict]:
    """The requirements sentence and :data:`SETUP` with :data:`jaxbook.runtime.JAX_ENV`, to run
    before ``import jax``."""

    def lines(names: list[str], indent: str) -> str:
        return "".join(f"{indent}{json.dumps(k)}: {json.dumps(runtime.JAX_ENV[k])},\n" for k in names)

    devices = [k for k in runtime.JAX_ENV if k in runtime.DEVICE_VARIABLES]
    other = [k for k in runtime.JAX_ENV if k not in runtime.DEVICE_VARIABLES]
    setup = SETUP.substitute(
        count=runtime.DEVICE_COUNT, other=lines(other, " " * 4), devices=lines(devices, " " * 8)
    )
    text = (
        f"{requirements_sentence({'cells': cells})}\n\n"
        f"The next cell makes JAX run on the CPU and present it as {runtime.DEVICE_COUNT} "
        "devices, as the book does when it is built, so the sharding examples run on a "
        "laptop. It must run before JAX is imported. To run the page on your GPU or TPU "
        "instead, set `DEVICES = \"own\"`: the outputs are then your device's (the book's page "
        '"On a GPU or TPU" says what differs), and a cell whose mesh needs more devices than '
        "you have says so."
    )
    return [markdown(text), code(setup, "setup")]


def requirements_sentence(notebook: dict) -> str:
    """The Python and the packages the notebook's code needs, e.g. "Runs with Python ≥ 3.12, jax ≥
    0.12 and optax; ..." (the Python that the installed JAX requires)."""
    names: set[str] = set()
    for cell in notebook["cells"]:
        if cell["cell_type"] == "code":
            names |= top_level_imports(source(cell))
            names |= {pip for call, pip in CALLS_NEEDING.items() if call in source(cell)}
    names -= {"jax", "jaxbook", "snippets", "practice"}  # the book's own, written by the notebook
    names -= written_modules(notebook)  # and the helpers it writes beside itself (_model.py)
    packages = [f"jax ≥ {'.'.join(version('jax').split('.')[:2])}"]
    packages += sorted({PIP_NAMES.get(n, n) for n in names} - {None})
    python = "Python ≥ " + re.search(r">=\s*([\d.]+)", metadata("jax")["Requires-Python"])[1]
    listed = ", ".join([python, *packages[:-1]]) + " and " + packages[-1]
    return (
        f"Runs with {listed} (`pip install {' '.join(p.split()[0] for p in packages)}`); "
        f"{runtime.DEVICE_COUNT} CPU devices are emulated in the first code cell."
    )


def written_modules(notebook: dict) -> set[str]:
    """The modules the notebook's ``%%writefile`` cells write beside it (``_model`` for
    ``%%writefile _model.py``)."""
    found = set()
    for cell in notebook["cells"]:
        first = source(cell).partition("\n")[0].split()
        if cell["cell_type"] == "code" and first[:1] == ["%%writefile"] and len(first) == 2:
            target = first[1]
            if "/" not in target and target.endswith(".py"):
                found.add(target[: -len(".py")])
    return found


def top_level_imports(text: str) -> set[str]:
    lines = [line for line in text.splitlines() if not line.startswith("%%")]
    try:
        tree = ast.parse("\n".join(lines))
    except SyntaxError:
        return set()
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names.add(node.module.split(".")[0])
    return names - set(sys.stdlib_module_names)


#: Jupyter's metadata for a cell whose source is collapsed: the reader sees its output, not its code.
HIDDEN = {"jupyter": {"source_hidden": True}}


def helper_cells(paths: list[Path], root: Path, role: str, beside: set[Path] = frozenset()) -> list[dict]:
    """Cells that write ``paths`` (project files) at the same relative paths in the working folder,
    but those in ``beside`` (helpers a snippet imports by bare name from its own folder, as
    ``from _model import data``) beside the notebook, where that import finds them. A practice
    notebook's checker (role ``check``) is collapsed: it is set-up, not the lesson."""
    if not paths:
        return []
    folders = {p.relative_to(root).parent.as_posix() for p in paths if p not in beside} - {"."}
    folders = sorted(f for f in folders if not any(g.startswith(f + "/") for g in folders))
    collapsed = HIDDEN if role == "check" else {}
    cells = []
    if folders:
        makedirs = "\n".join(f"os.makedirs({json.dumps(f)}, exist_ok=True)" for f in folders)
        cells.append(code(f"import os\n\n{makedirs}", role, **collapsed))
    for path in paths:
        text = path.read_text(encoding="utf-8")
        # A practice solution is collapsed in Jupyter, as on the page: it is the answer.
        hidden = HIDDEN if path.name == "solution.py" else collapsed
        target = path.name if path in beside else path.relative_to(root).as_posix()
        cells.append(code(f"%%writefile {target}\n{text}", role, **hidden))
    return cells


def carried_test_files(problem: Path, root: Path) -> list[Path]:
    """What a practice notebook carries to run its tests: jaxbook/practice.py and the modules of
    jaxbook it imports (its Hypothesis seam), the tests and every project file they import."""
    # Packages' __init__.py stay out: the folders import as namespace packages, and the machinery's
    # docstrings are not the reader's.
    needed = [
        p for p in project_dependencies(root / "jaxbook" / "practice.py", root) if p.name != "__init__.py"
    ]
    for test in sorted(problem.glob("test_*.py")):
        needed += project_dependencies(test, root)
    return list(dict.fromkeys(needed))


def run_tests_cells(problem: Path, root: Path, written: set[Path]) -> list[dict]:
    """Write the problem's tests (and what they import) and run them against the reader's file."""
    files = [p for p in carried_test_files(problem, root) if p not in written]
    rel = problem.relative_to(root).as_posix()
    intro = (
        "## Run the tests\n\nThe cells below write the problem's tests and "
        f"run them against `{problem.name}.py`, the file the code cell under *What to "
        "implement* writes. Edit that cell, run it, then run the last cell again. It prints "
        "one line per test and a verdict, as `make check` does in the repository.\n\n"
        "The collapsed cells only set up the checker; you need not read them. Run them once, "
        "then the last cell."
    )
    # The last cell, which the reader runs after each edit, stays open: it is two short lines.
    run = f'from jaxbook.practice import check\n\ncheck("{problem.name}.py", "{rel}")'
    return [
        markdown(intro),
        *helper_cells(files, root, "check"),
        *requirement_cells(problem, root),
        code(run, "check"),
    ]


def requirement_cells(problem: Path, root: Path) -> list[dict]:
    """The statement's numbered requirements, written where the check reads them to report a
    failure with their sentences, as ``make check`` does."""
    numbered = requirements(problem.parent / f"{problem.name}.md")
    if not numbered:
        return []
    listed = "\n".join(f"{n}. {sentence}" for n, sentence in numbered.items())
    text = f"The tests {REQUIREMENTS_INTRO}:\n\n{listed}\n"
    page = (problem.parent / f"{problem.name}.md").relative_to(root).as_posix()
    return [code(f"%%writefile {page}\n{text}", "check", **HIDDEN)]


# -- Markdown: MyST directives to what Jupyter renders --------------------------------------------


#: MyST's admonitions but ``admonition`` (whose title is its argument), each titled by its name
#: (``seealso``: "See also"): in the reader's notebook, a quotation under that title in bold.
ADMONITIONS = set("note tip hint important seealso attention caution warning danger error".split())


class NotebookError(ValueError):
    """Markdown at ``line`` of ``page`` that the reader's notebook cannot show: ``detail`` says why."""

    def __init__(self, page: Path, line: int, detail: str):
        self.line, self.detail = line, detail
        super().__init__(f"{display_path(page)}:{line}: {detail}")


def markdown_cells(text: str, page: Path, problem: Path | None, first: int | None = None) -> list[dict]:
    """The Markdown of a page cell for Jupyter, read with MyST's parser: each directive in a form
    Jupyter shows, the practice starter as a code cell of its own. ``first``: the page's line
    number of ``text``'s first line (by default, where ``text`` is found in the page)."""
    if first is None:
        whole = page.read_text(encoding="utf-8") if page.is_file() else text
        first = whole[: max(whole.find(text), 0)].count("\n") + 1
    text, failed = chip.notebook_markdown(text, book_root())  # the chip's figures, as the site shows them
    if failed:  # the build reports each at its line too; the notebook stops at the first
        raise NotebookError(page, first + failed[0][0], failed[0][1])
    lines, out, cells, done = text.split("\n"), [], [], 0
    for token in pages.tokens(text):
        if token.type not in ("fence", "colon_fence"):
            continue
        start, end = token.map
        opening = lines[start]
        if not token.info.startswith("{"):  # a block of code, copied as it is
            if token.content.startswith("make "):
                raise NotebookError(
                    page,
                    first + start,
                    "`make` runs in a clone of the book's repository, not in the reader's notebook: put "
                    "this block in an {only} html block, and what the reader of the notebook does "
                    "instead in an {only} notebook block",
                )
            continue
        name, _, rest = token.info[1:].partition("}")
        parsed = myst_parser.directive(rest.strip(), token.content, argument=name not in ADMONITIONS)
        arg, body = " ".join(parsed.arguments), "\n".join(parsed.body)
        inside = first + start + 1 + parsed.body_offset  # the content's first line
        out += lines[done:start]
        done = end
        if name == "literalinclude":
            path = (page.parent / arg).resolve()
            included = path.read_text(encoding="utf-8")
            if problem is not None and path == problem / "starter.py":
                attempt = code(f"%%writefile {problem.name}.py\n{included}", "attempt")
                cells += [markdown("\n".join(out)), attempt]
                out = []
                continue
            shown = [f"```{parsed.options.get('language', '')}", included.rstrip("\n"), "```"]
        elif name == "dropdown":
            content = inner(body, page, inside)
            shown = [f"<details><summary>{escape(arg)}</summary>", "", content, "", "</details>"]
        elif name in ADMONITIONS or name == "admonition":
            title = arg if name == "admonition" else {"seealso": "See also"}.get(name, name.title())
            quoted = [f"> {line}".rstrip() for line in inner(body, page, inside).split("\n")]
            shown = [f"> **{title}**", ">", *quoted]
        elif name == "chip-table":
            try:
                shown = [chip.markdown_table(book_root(), *arg.split())]
            except (ChipError, TypeError) as exc:
                raise NotebookError(page, first + start, f"{{chip-table}} {arg}: {exc}") from exc
        elif (name, arg) == ("only", "notebook"):
            shown = [inner(body, page, inside)]
        elif name == "toctree" or (name, arg) == ("only", "html"):  # the site's navigation, the site's text
            if lines[end : end + 1] == [""]:  # left out, with the blank line after it
                done += 1
            continue
        else:
            raise NotebookError(
                page,
                first + start,
                f"the directive {{{name}}} {arg}".rstrip() + " has no form in the reader's notebook: give "
                "it one in jaxbook/downloads.py markdown_cells, or use one that has (literalinclude, "
                "dropdown, an admonition, toctree, only html, only notebook)",
            )
        indent = opening[: opening.index(token.markup)]  # in a list item or a quotation
        out += [indent + line if line else indent.rstrip() for line in "\n".join(shown).split("\n")]
    cells.append(markdown("\n".join(out + lines[done:])))
    return [c for c in cells if c["cell_type"] == "code" or c["source"].strip()]


def inner(text: str, page: Path, first: int) -> str:
    """The Markdown of a directive's content (from the page's line ``first``), for Jupyter."""
    return "".join(c["source"] for c in markdown_cells(text, page, None, first))


def without_merged_streams(outputs: list[dict]) -> list[dict]:
    """Keep only the first stream output of each name (it already holds the merged text).
    Upstream: MyST-NB's merge of stream outputs (docs/upstream.md, MyST-NB 3)."""
    seen, kept = set(), []
    for output in outputs:
        if output["output_type"] == "stream":
            if output["name"] in seen:
                continue
            seen.add(output["name"])
        kept.append(output)
    return kept


def on_source_read(app, docname: str, source: list[str]) -> None:
    """A practice statement's download carries its tests: an edit to them rebuilds the page."""
    problem = practice_problem(Path(app.env.doc2path(docname)).resolve(), book_root())
    for path in carried_test_files(problem, book_root()) if problem else []:
        app.env.note_dependency(str(path))


def setup(app):
    app.connect("source-read", on_source_read)
    app.add_node(download, override=True, html=(visit_download, None))
    # Before the theme builds its download menu from the context.
    app.connect("html-page-context", on_html_page_context, priority=theme.BEFORE_HEADER_BUTTONS)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
