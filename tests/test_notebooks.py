"""The downloadable notebooks run as a reader runs them, and agree with the site.

Each notebook of ``_build/html/_sources/`` runs in a plain ``python3`` ipykernel in an empty folder
outside the repository, without the book's settings (:func:`reader_env`), compiling for another CPU
(:data:`OTHER_CPU`). Each cell must print what the page shows under it (floats within the
snippet's tolerance, as the build compares), raise what the site's cell raised, and the cells the
download adds never raise; a practice notebook's check says "not yet" for the starter and "solved"
for the reference solution. Kernels talk over Unix sockets, so parallel kernels race for no port.
"""

from __future__ import annotations

import difflib
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat
import pytest
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager
from myst_nb.core.read import read_myst_markdown_notebook
from nbclient import NotebookClient

from jaxbook import ROOT, compare, layout, pages, runtime
from jaxbook.compare import Tolerance
from jaxbook.deps import project_dependencies, script_imports
from jaxbook.downloads import NotebookError, markdown_cells, reader_notebook, source
from jaxbook.execute import without_user_settings
from jaxbook.outputs import normalise
from jaxbook.reader import reader_view
from jaxbook.snippet import parse_tolerance, scrub
from tests import pass_cache

JUPYTER_EXECUTE = ROOT / layout.BUILD / "jupyter_execute"  # MyST-NB's executed notebooks
PAGES = sorted(
    path.relative_to(ROOT).with_suffix("").as_posix()
    for path in pages.book_pages(ROOT)
    if pages.read(path).cells
)
PROBE = """import importlib.util, json, os
found = {n: importlib.util.find_spec(n) for n in ("jaxbook", "tests", "snippets", "practice")}
print(json.dumps({n: s and list(s.submodule_search_locations or [s.origin])
                  for n, s in found.items()}
                 | {n: os.environ.get(n) for n in VARIABLES}))""".replace(
    "VARIABLES", repr(("XLA_FLAGS", *runtime.CACHE_VARIABLES))
)
#: The CPU the reader-notebook test compiles every page as (``None``: none to emulate; on Arm,
#: NEON's vectors are already 128 bits wide and XLA has no older instruction set to choose).
READER_CPU = "avx2-128" if platform.machine().lower() in ("x86_64", "amd64") else None
#: XLA flags of the reader's kernel: another CPU than the build's (:data:`READER_CPU`,
#: on x86-64 AVX2 with 128-bit vectors), so an output that moves with the CPU fails here; empty on Arm.
OTHER_CPU = runtime.OTHER_CPUS[READER_CPU] if READER_CPU else ""


def reader_env(folder: Path) -> dict:
    """The environment of a reader's Jupyter: nothing of the book, no device flags, and not the
    test session's JAX compilation cache (a page that times compiles would time loads)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in runtime.JAX_ENV and not k.startswith(("JAX", "XLA", "JUPYTER", "MPL"))
    }
    env["JUPYTER_RUNTIME_DIR"] = str(folder)  # connection files and ipc sockets live here
    return without_user_settings(env, folder / "home")


def role(cell) -> str | None:
    return cell.metadata.get("jaxbook", {}).get("role")


def hidden(cell) -> bool:
    """Whether Jupyter shows the cell's source collapsed."""
    return bool(cell.metadata.get("jupyter", {}).get("source_hidden"))


def error_of(cell) -> str | None:
    """The exception class name a code cell raised, or None."""
    for output in cell.get("outputs", []):
        if output.output_type == "error":
            return output.ename
    return None


def stdout_of(cell) -> str:
    return "".join(o.get("text", "") for o in cell.get("outputs", []) if o.output_type == "stream")


def shown(site_cell) -> str:
    """What the page shows a site cell printed: its first stream output (MyST-NB merges the later
    ones into it)."""
    streams = [o.text for o in site_cell.get("outputs", []) if o.output_type == "stream"]
    return normalise(streams[0] if streams else "")


def printed(cell, stream: str) -> str:
    """What a reader's code cell wrote to ``stream``, normalised as the build normalises. Colour
    codes are kept: the page has none, so a jaxpr Jupyter colours differs."""
    text = "".join(o.text for o in cell.get("outputs", []) if o.get("name") == stream)
    return normalise(scrub(text))


#: Where a warning was raised, ``path:line:``: the page names the snippet, ipykernel its cell file.
LOCATION = re.compile(r"^\S+:\d+: ")


def print_difference(site_cell, cell, tolerance: Tolerance = compare.DEFAULT) -> str | None:
    """How the reader's cell's printed output differs from the page's (floats within
    ``tolerance``), or None. The page interleaves stdout and stderr; ipykernel keeps them apart, so
    each page line must be the reader's next stdout line or one of its stderr lines (a warning's
    location aside), and every stdout line must be used."""
    page, out, err = shown(site_cell), printed(cell, "stdout"), printed(cell, "stderr")
    if err:
        written = {LOCATION.sub("", line) for line in err.splitlines()}
        rest = iter(out.splitlines())
        pending, accounted = next(rest, None), True
        for line in page.splitlines():
            if pending is not None and compare.matches(line, pending, tolerance):
                pending = next(rest, None)
            elif LOCATION.sub("", line) not in written:
                accounted = False
        if accounted and pending is None:
            return None
    elif compare.matches(page, out, tolerance):
        return None
    diff = difflib.unified_diff(page.splitlines(), out.splitlines(), "site", "reader", lineterm="")
    return "\n".join(diff)


def on_another_cpu(setup: str) -> str:
    """The set-up cell ``setup``, with :data:`OTHER_CPU` added to the XLA flags it sets."""
    flags = runtime.JAX_ENV["XLA_FLAGS"]
    assert setup.count(json.dumps(flags)) == 1, setup
    return setup.replace(json.dumps(flags), json.dumps(f"{flags} {OTHER_CPU}".strip()))


class Reader:
    """A plain ipykernel in an empty folder outside the repository, executing one notebook."""

    def __init__(self, notebook, folder: Path):
        self.notebook, self.folder = notebook, folder
        # A short private folder: ipc socket paths must stay under ~100 characters.
        self.runtime = Path(tempfile.mkdtemp(prefix="nb"))
        specs = KernelSpecManager(kernel_dirs=[])  # only the native python3 spec (sys.executable)
        self.km = KernelManager(
            kernel_name="python3",
            kernel_spec_manager=specs,
            transport="ipc",
            connection_file=str(self.runtime / "kernel.json"),
        )
        assert not Path(self.km.kernel_spec.resource_dir).resolve().is_relative_to(ROOT / "jaxbook")
        self.client = NotebookClient(
            notebook,
            km=self.km,
            timeout=600,
            allow_errors=True,
            shutdown_kernel="immediate",
            resources={"metadata": {"path": str(folder)}},
        )

    def __enter__(self):
        self._context = self.client.setup_kernel(
            env=reader_env(self.runtime), cwd=str(self.folder), cleanup_kc=True
        )
        self._context.__enter__()
        return self

    def __exit__(self, *exc):
        try:
            return self._context.__exit__(*exc)
        finally:
            shutil.rmtree(self.runtime, ignore_errors=True)

    def run(self, index: int):
        return self.client.execute_cell(self.notebook.cells[index], index)

    def run_all(self):
        for index, cell in enumerate(self.notebook.cells):
            if cell.cell_type == "code":
                self.run(index)

    def probe(self) -> dict:
        cell = nbformat.v4.new_code_cell(PROBE)
        self.notebook.cells.append(cell)
        try:
            self.client.execute_cell(cell, len(self.notebook.cells) - 1, store_history=False)
        finally:
            self.notebook.cells.pop()
        return json.loads(stdout_of(cell))


def differences(page: str, site, reader) -> list[str]:
    """Differences between the site's executed notebook of ``page`` and the reader's run, one
    line each."""
    site_cells = [c for c in site.cells if c.cell_type == "code"]
    own = [c for c in reader.cells if c.cell_type == "code" and c.metadata.get("load")]
    problems = []
    if [c.metadata.load for c in site_cells] != [c.metadata.load for c in own]:
        return [
            f"the download's snippet cells {[c.metadata.load for c in own]} are not the "
            f"site's {[c.metadata.get('load') for c in site_cells]}"
        ]
    for site_cell, cell in zip(site_cells, own):
        name = pages.loaded(ROOT / page, cell.metadata.load).relative_to(ROOT).as_posix()
        # the reader's cell is the site's source without the contract's declaration lines
        if cell.source.rstrip("\n") != reader_view(site_cell.source, name).source.rstrip("\n"):
            problems.append(f"{cell.metadata.load}: source differs from the site's")
        tolerance = parse_tolerance(site_cell.source, name)  # the reader's cell hides it
        diff = print_difference(site_cell, cell, tolerance)
        if diff is not None:
            problems.append(
                f"{name}: prints something else for the reader, whose kernel compiles with "
                f"{OTHER_CPU or 'no other flags'}, than on the site, beyond its tolerance ({tolerance}): "
                "a number that moves with the CPU needs a '# tolerance:' declaration, or printing at "
                "the precision the page claims (docs/contributing.md):\n" + diff
            )
        if error_of(site_cell) != error_of(cell):
            problems.append(
                f"{cell.metadata.load}: raised {error_of(cell)} for the reader, "
                f"{error_of(site_cell)} on the site\n{stdout_of(cell)[-2000:]}"
                + "".join("\n".join(o.get("traceback", [])) for o in cell.outputs)[-3000:]
            )
        tagged = "raises-exception" in cell.metadata.get("tags", [])
        if tagged != (error_of(site_cell) is not None):
            problems.append(f"{cell.metadata.load}: raises-exception tag is {tagged}")
    for cell in reader.cells:
        if cell.cell_type == "code" and role(cell) and error_of(cell):
            problems.append(
                f"added {role(cell)} cell raised {error_of(cell)}:\n{cell.source[:300]}"
                + "".join("\n".join(o.get("traceback", [])) for o in cell.outputs)[-3000:]
            )
    return problems


def self_check_line(cell) -> tuple[str, int, int]:
    """(verdict, passed, total) from the last line of a check cell's report."""
    found = re.findall(r"^(\d+)/(\d+) tests pass: (.+)$", stdout_of(cell), re.M)
    assert found, f"no verdict in the check cell's output:\n{stdout_of(cell)[-3000:]}"
    passed, total, text = found[-1]
    return text, int(passed), int(total)


# One notebook per test, so xdist spreads them over every core (the site is built once, first).
@pytest.mark.build
@pytest.mark.inputs.with_args(pass_cache.notebook_page)
@pytest.mark.parametrize("page", PAGES)
def test_download_runs_outside_the_repository(page, built_site, tmp_path):
    download = built_site / "_sources" / f"{page}.ipynb"
    assert download.is_file(), f"no download for {page}"
    site = nbformat.read(JUPYTER_EXECUTE / f"{page}.ipynb", as_version=4)
    reader = nbformat.read(download, as_version=4)
    nbformat.validate(reader)
    folder = tmp_path / "reader"
    folder.mkdir()
    assert not folder.resolve().is_relative_to(ROOT)
    setup = next(c for c in reader.cells if role(c) == "setup")
    setup.source = on_another_cpu(setup.source)
    with Reader(reader, folder) as kernel:
        kernel.run_all()
        seen = kernel.probe()  # only what the notebook wrote into its folder is importable
        assert seen["tests"] is None, seen
        assert set(OTHER_CPU.split()) <= set(seen["XLA_FLAGS"].split()), seen  # the set-up passed it on
        # a reader's first run compiles: timings are of compiles, not loads from the suite's cache
        assert not any(seen[n] for n in runtime.CACHE_VARIABLES), seen
        # a practice page writes its check, jaxbook/practice.py, and what it imports into the folder,
        # and nothing else of jaxbook
        check = {
            p.relative_to(ROOT).as_posix()
            for p in project_dependencies(ROOT / "jaxbook" / "practice.py", ROOT)
        }
        written = (
            {p.relative_to(folder).as_posix() for p in (folder / "jaxbook").rglob("*.py")}
            if seen["jaxbook"]
            else set()
        )
        assert written <= check, written
        for name in ("snippets", "practice", "jaxbook"):
            assert all(Path(p).resolve().is_relative_to(folder.resolve()) for p in seen[name] or []), seen
        problems = differences(page, site, reader)
        code_cells = [c for c in reader.cells if c.cell_type == "code"]
        print(
            f"{page}: {len(code_cells)} cells run, "
            f"{sum(bool(c.metadata.get('load')) for c in code_cells)} compared, "
            f"{len(problems)} differ"
        )
        assert not problems, "\n".join(problems)
        attempts = [i for i, c in enumerate(reader.cells) if role(c) == "attempt"]
        if not attempts:
            return
        # A practice page: the starter is not yet a solution; the reference solution is.
        checks = [
            i
            for i, c in enumerate(reader.cells)
            if role(c) == "check" and c.source.startswith("from jaxbook.practice import check")
        ]
        assert checks == [len(reader.cells) - 1], "the check must be the last cell"
        text, _, total = self_check_line(reader.cells[-1])
        assert text == "not yet" and total >= 3, stdout_of(reader.cells[-1])
        attempt = attempts[0]
        header, _, _ = reader.cells[attempt].source.partition("\n")
        solution = (ROOT / page / "solution.py").read_text(encoding="utf-8")
        reader.cells[attempt].source = f"{header}\n{solution}"
        kernel.run(attempt)
        kernel.run(checks[0])
        text, passed, solved_total = self_check_line(reader.cells[-1])
        assert (text, passed, solved_total) == ("solved: every test passes", total, total), stdout_of(
            reader.cells[-1]
        )[-3000:]


#: Prints the float32 bits of a matrix-vector product: XLA's code for it sums in another order
#: with OTHER_CPU, so its last bits change.
ROUNDING = """import json
import jax, jax.numpy as jnp, numpy as np
x = jax.random.normal(jax.random.key(0), (3, 300))
y = jax.random.normal(jax.random.key(1), (300,))
print(json.dumps(np.asarray(jax.jit(jnp.dot)(x, y)).tobytes().hex()))"""


@pytest.mark.skipif(
    READER_CPU is None,
    reason=f"no other CPU to emulate on {platform.machine()} (Arm's NEON vectors are 128 bits already)",
)
@pytest.mark.inputs(lambda item: pass_cache.page_sources(ROOT / f"{PAGES[0]}.md"))  # its set-up cell
def test_the_readers_kernel_rounds_as_another_cpu(tmp_path):
    """The reader's kernel, given the set-up cell as the notebook test gives it, rounds otherwise
    than this worker, which has the build's JAX settings: without that, comparing printed
    outputs would say nothing about another CPU. The worker compiles first, into the compilation
    cache the reader's kernel reads, so the test also fails if the cache key ignored the flag."""
    import contextlib
    import io

    here = io.StringIO()
    with contextlib.redirect_stdout(here):
        exec(ROUNDING, {})
    page = PAGES[0]  # every download starts with the same set-up cell
    download = nbformat.from_dict(reader_notebook(unexecuted(page), ROOT / f"{page}.md", ROOT))
    setup = next(c for c in download.cells if role(c) == "setup")
    notebook = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell(on_another_cpu(setup.source)), nbformat.v4.new_code_cell(ROUNDING)]
    )
    with Reader(notebook, tmp_path) as kernel:
        kernel.run_all()
    failed = [c.outputs for c in notebook.cells if error_of(c)]
    assert not failed, failed
    assert json.loads(stdout_of(notebook.cells[-1])) != json.loads(here.getvalue()), (
        f"a float32 dot gives the same bits with {OTHER_CPU}: the reader's kernel rounds as the build's"
    )


def test_print_difference_compares_what_a_reader_sees_with_the_page():
    """The comparison of printed output, on cells shaped as the build's kernel and ipykernel write
    them: the page merges everything into one stream; the reader has stdout and stderr."""

    def cell(*streams):
        outputs = [nbformat.v4.new_output("stream", name=n, text=text) for n, text in streams]
        return nbformat.v4.new_code_cell("", outputs=outputs)

    page = cell(("stdout", "w: [0.061349]\nsnippets/a/x.py:4: DeprecationWarning: f is deprecated\nok\n"))
    warning = ("stderr", "/tmp/ipykernel_7/12.py:4: DeprecationWarning: f is deprecated\n  f()\n")
    assert print_difference(page, cell(("stdout", "w: [0.061349]\nok\n"), warning)) is None
    # a float compares as a number: printed with more digits it matches; moved beyond the tolerance, not
    assert print_difference(page, cell(("stdout", "w: [0.06134919]\nok\n"), warning)) is None
    assert "+w: [0.06135919]" in print_difference(page, cell(("stdout", "w: [0.06135919]\nok\n"), warning))
    assert print_difference(page, cell(("stdout", "ok\nw: [0.061349]\n"), warning)) is not None
    assert print_difference(page, cell(("stdout", "w: [0.061349]\nok\n"))) is not None
    assert print_difference(page, cell(("stdout", "ok\n"), warning)) is not None  # a line missing
    assert print_difference(page, cell(warning)) is not None
    assert print_difference(page, cell(("stdout", "w: [0.061349]\nok\n"), ("stderr", "other\n"))) is not None
    assert print_difference(page, cell(("stdout", "w: [0.061349]\nok\nmore\n"), warning)) is not None

    page = cell(("stdout", "jit: 38.1 ms\nf32[2]\n"))
    assert print_difference(page, cell(("stdout", "jit: 4.2 ms \nf32[2]\n"))) is None
    # a jaxpr in colour is not what the page shows
    assert print_difference(page, cell(("stdout", "jit: 4.2 ms \n\x1b[35mf32[2]\x1b[39m\n"))) is not None
    assert (
        print_difference(page, cell(("stdout", "jit: 4.2 ms\n")))
        == "--- site\n+++ reader\n@@ -1,2 +1 @@\n jit: <duration>\n-f32[2]"
    )


# -- the generator, without a build: fast checks of the notebook's structure -------------------------


def unexecuted(page: str) -> dict:
    """The notebook MyST-NB reads from ``page``, before it runs."""
    path = ROOT / f"{page}.md"
    return read_myst_markdown_notebook(path.read_text(encoding="utf-8"), path=path)


@pytest.mark.inputs.with_args(pass_cache.notebook_page)
@pytest.mark.parametrize("page", [p for p in PAGES if not p.endswith("/index")])
def test_notebook_structure(page):
    from jaxbook.reader import reader_view
    from jaxbook.snippet import DECLARATION, parse_declaration

    notebook = nbformat.from_dict(reader_notebook(unexecuted(page), ROOT / f"{page}.md", ROOT))
    nbformat.validate(notebook)
    code_cells = [c for c in notebook.cells if c.cell_type == "code"]
    assert role(code_cells[0]) == "setup"
    for key, value in runtime.JAX_ENV.items():  # taken from the one place, not copied
        assert json.dumps(key) in code_cells[0].source and json.dumps(value) in code_cells[0].source
    written = set()
    for cell in code_cells[1:]:
        assert role(cell) or cell.metadata.get("load"), cell.source[:200]
        if cell.source.startswith("%%writefile "):
            written.add(cell.source.split("\n", 1)[0].split()[1])
        if cell.metadata.get("load"):
            snippet = pages.loaded(ROOT / f"{page}.md", cell.metadata.load)
            beside = script_imports(snippet, ROOT)  # imported by bare name: written beside the notebook
            needed = {
                p.name if p in beside else p.relative_to(ROOT).as_posix()
                for p in project_dependencies(snippet, ROOT)[1:]
            }
            assert needed <= written, f"{cell.metadata.load} runs before {needed - written} is written"
            source = snippet.read_text(encoding="utf-8")
            declared = parse_declaration(source, cell.metadata.load) is not None
            assert declared == ("raises-exception" in cell.metadata.get("tags", []))
            # the snippet as the page shows it: the contract's declaration lines left out
            assert cell.source.rstrip("\n") == reader_view(source, cell.metadata.load).source.rstrip("\n")
            shown = [line for line in cell.source.split("\n") if DECLARATION.match(line.strip())]
            assert not shown, f"{cell.metadata.load}: the contract's lines in the reader's notebook: {shown}"
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            assert not any(line.startswith("%%") for line in cell.source.split("\n"))
            shown_as_code = [t.info for t in pages.tokens(cell.source) if t.info.startswith("{")]
            assert not shown_as_code, f"MyST directives Jupyter shows as code: {shown_as_code}"
    pip = re.search(r"`pip install ([^`]*)`", notebook.cells[1].source)[1].split()
    assert not {w.split("/")[0].removesuffix(".py") for w in written} & set(pip), f"installs its own: {pip}"
    if page.startswith("practice/"):
        problem = ROOT / page
        attempts = [c for c in code_cells if role(c) == "attempt"]
        assert len(attempts) == 1
        assert attempts[0].source == (
            f"%%writefile {problem.name}.py\n"
            + (problem / "starter.py").read_text(encoding="utf-8").rstrip("\n")
        )
        for test in problem.glob("test_*.py"):
            assert f"{test.relative_to(ROOT).as_posix()}" in written
        assert "jaxbook/practice.py" in written
        assert not any("make check PROBLEM" in c.source for c in notebook.cells), "no clone needed"
        assert code_cells[-1].source.endswith(
            f'check("{problem.name}.py", "{problem.relative_to(ROOT).as_posix()}")'
        )
        # The checker's set-up is collapsed, not thousands of lines to scroll past; the call the
        # reader runs after each edit stays open.
        checks = [c for c in code_cells if role(c) == "check"]
        assert checks[-1] is code_cells[-1] and len(checks) > 1
        shown = [c.source.split("\n", 1)[0] for c in checks[:-1] if not hidden(c)]
        assert not shown, f"checker cells shown open: {shown}"
        assert not hidden(code_cells[-1]), "the cell that runs the check is collapsed"


@pytest.mark.inputs()
def test_directives_become_what_jupyter_shows(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        "# Page\n\n```{admonition} An advanced step\n:class: note\nRead [this](other.md) first.\n```\n\n"
        "```{warning} It costs\na second line.\n```\n\n````markdown\n```{figure} shown.png\n```\n````\n\n"
        "::::{only} html\nRun:\n\n```bash\nmake check\n```\n::::\n\n"
        "```{only} notebook\n---\nclass: x\n---\nRun the last cell.\n```\n\n"
        "- In a list:\n\n  ```{tip}\n  Indented.\n  ```\n"
    )
    shown = "".join(c["source"] for c in markdown_cells(page.read_text(), page, None))
    assert shown == (
        "# Page\n\n> **An advanced step**\n>\n> Read [this](other.md) first.\n\n"
        "> **Warning**\n>\n> It costs\n> a second line.\n\n````markdown\n```{figure} shown.png\n```\n````\n\n"
        "Run the last cell.\n\n- In a list:\n\n  > **Tip**\n  >\n  > Indented."
    )


@pytest.mark.inputs()
@pytest.mark.parametrize(
    "markdown, error",
    [
        (
            "````{dropdown} More\nText.\n\n```{figure} plot.png\n:alt: A plot\n```\n````",
            r"page\.md:6: the directive \{figure\} plot\.png has no form",
        ),
        ("::::{only} latex\nPrinted.\n::::", r"page\.md:3: the directive \{only\} latex has no form"),
        (
            "::::{only} html\n```bash\nmake check\n```\n::::\n\n```bash\nmake check\n```",
            r"page\.md:9: `make` runs in a clone .* \{only\} html",
        ),
    ],
)
def test_markdown_the_notebook_cannot_show_fails_naming_its_line(tmp_path, markdown, error):
    page = tmp_path / "page.md"
    page.write_text(f"# Page\n\n{markdown}\n")
    with pytest.raises(NotebookError, match=error):
        markdown_cells(page.read_text(), page, None)


#: A file of the book named in an output: a snippet, a helper, a practice module.
BOOK_FILE = re.compile(r"\b(?:snippets|practice)/[\w/.-]+\.py\b")


@pytest.mark.build
def test_the_notebooks_outputs_name_only_files_the_reader_has(built_site):
    """An output of a download (a declared error's traceback, a warning's location) names the
    cell that raised it, as the reader's Jupyter does, or a helper module the notebook writes into
    the reader's folder, never a snippet file the reader does not have."""
    problems, cells = [], 0
    for notebook in sorted((built_site / "_sources").rglob("*.ipynb")):
        code = [
            c for c in json.loads(notebook.read_text(encoding="utf-8"))["cells"] if c["cell_type"] == "code"
        ]
        written = {
            "".join(c["source"]).split("\n", 1)[0].split()[-1]
            for c in code
            if "".join(c["source"]).startswith("%%writefile ")
        }
        for number, cell in enumerate(code, 1):
            assert cell["execution_count"] == number, f"{notebook.name}: cells numbered as a run from the top"
            text = json.dumps(cell["outputs"])
            cells += "Cell In[" in text
            problems += [
                f"{notebook.name}: In[{number}] names {name}"
                for name in BOOK_FILE.findall(text)
                if name not in written
            ]
    assert cells >= 10, f"only {cells} outputs name their cell: the declared errors were lost"
    assert not problems, "\n".join(problems[:30])


MARKDOWN_LINK = re.compile(r"\]\(([^)\s]+)\)")


@pytest.mark.build
def test_links_in_the_notebooks_reach_pages_of_the_site(built_site):
    """A reader's folder has no .md files: each link of a downloaded notebook to another page
    opens that page of the built site, at an anchor the page has (hosted builds link to absolute
    URLs instead: tests/test_publishing.py)."""
    sources = built_site / "_sources"
    problems, checked = [], 0
    for notebook in sorted(sources.rglob("*.ipynb")):
        cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
        text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
        for target in MARKDOWN_LINK.findall(text):
            if re.match(r"[a-z][a-z0-9+.-]*:|#", target):
                continue  # another site, or a place on the same page
            path, _, anchor = target.partition("#")
            page = (notebook.parent / path).resolve()
            where = f"{notebook.relative_to(sources)}: ]({target})"
            checked += 1
            if path.endswith(".md") or not page.is_relative_to(built_site.resolve()) or not page.is_file():
                problems.append(f"{where} is no page of the site")
            elif anchor and f'id="{anchor}"' not in page.read_text(encoding="utf-8"):
                problems.append(f"{where}: the page has no id {anchor!r}")
    assert checked > 100, f"only {checked} links to pages found: the notebooks' links were lost"
    assert not problems, "\n".join(problems)


@pytest.mark.inputs("practice", "snippets/practice/masked_mean.py")  # its statement, problem and demo
def test_notebook_check_prints_the_report_of_make_check(tmp_path):
    """The notebook's check, its files written into an empty folder, and `make check` agree line by line."""
    page = "practice/arrays/masked_mean"
    cells = reader_notebook(unexecuted(page), ROOT / f"{page}.md", ROOT)["cells"]
    for cell in cells:
        magic, _, text = source(cell).partition("\n")
        if magic.startswith("%%writefile "):
            (tmp_path / magic.split()[1]).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / magic.split()[1]).write_text(text + "\n", encoding="utf-8")
    env = {**reader_env(tmp_path), **runtime.JAX_ENV}
    run = {"capture_output": True, "text": True, "timeout": 600}
    notebook = subprocess.run([sys.executable, "-c", source(cells[-1])], cwd=tmp_path, env=env, **run)
    make = subprocess.run([sys.executable, "-m", "jaxbook.check", "masked-mean"], cwd=ROOT, **run)

    def report(output: str, label: str) -> list[str]:
        lines = output.splitlines()
        return lines[len(lines) - lines[::-1].index(label) :]

    shown = report(make.stdout, f"{page}/starter.py")
    assert report(notebook.stdout, "masked_mean.py") == shown, notebook.stdout + notebook.stderr
    assert shown[-1].endswith("tests pass: not yet") and len(shown) >= 5


def test_the_download_line_names_the_python_that_jax_requires():
    """``pip install jax`` on an older Python finds no distribution, so the line under each page's
    title names the Python the installed JAX requires, before the packages."""
    from importlib.metadata import metadata

    from jaxbook import downloads

    line = downloads.requirements_sentence({"cells": [{"cell_type": "code", "source": "import optax"}]})
    wanted = re.search(r">=\s*([\d.]+)", metadata("jax")["Requires-Python"])[1]
    assert line.startswith(f"Runs with Python ≥ {wanted}, jax ≥ "), line
    assert "and optax (`pip install jax optax`)" in line, line
