"""Every snippet of the book, run in the book's kernel under its contract (the page's result from
the execution store, or run here when the store lacks it), its output compared with its .out file.
The test id is the name shown above its cell on the site:
``pytest "tests/test_snippets.py::test_snippet[arrays/at_methods.py]"``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from jaxbook import ROOT, outputs, pages, verdict
from jaxbook.execute import Executor
from jaxbook.snippet import DECLARATION, PLATFORMS, parse_declaration, parse_platforms, source_of
from tests import pass_cache


def snippet_of(expected: Path) -> tuple[Path, str | None]:
    """The snippet whose expected output is the file ``expected`` (``x.out`` or ``x.gpu.out``:
    ``x.py``), and the platform of an accelerator's output (None for the CPU's ``.out``)."""
    stem, _, platform = Path(expected.stem).name.rpartition(".")
    if stem and platform in PLATFORMS:
        return expected.with_name(f"{stem}.py"), platform
    return expected.with_suffix(".py"), None


SNIPPETS = ROOT / "snippets"


def discover():
    """Snippet files: every .py under snippets/ except helpers (_name.py) and caches."""
    return pages.snippet_files(ROOT)


@pytest.fixture(scope="module")
def executor():
    with Executor(ROOT) as executor:
        yield executor


def outcome(path, executor):
    """What the book's kernel did with ``path``, as part of its page (from the store, or run now)."""
    name = path.relative_to(ROOT).as_posix()
    cell = executor.page(pages.page_of(path, ROOT)).cell(name)
    assert cell is not None, f"the result of {pages.page_of(path, ROOT)} has no cell for {name}"
    return cell


@pytest.mark.inputs.with_args(pass_cache.snippet_page)
@pytest.mark.parametrize("path", discover(), ids=lambda p: p.relative_to(SNIPPETS).as_posix())
def test_snippet(path, filled_store, executor):
    """The contract holds (declared error raised, no undeclared deprecation), and the output
    matches the committed expected output (text exactly, floats within the snippet's tolerance)."""
    cell = outcome(path, executor)
    finding = verdict.judge(cell, ROOT)
    assert finding is None, finding.details
    declaration = parse_declaration(source_of(path), str(path))
    if declaration is not None:
        # The declared error was raised and its trimmed traceback is part of the output.
        assert cell.raised is not None
        error = re.escape(declaration.raises.rsplit(".", 1)[-1])
        assert "Traceback (most recent call last):" in cell.text
        assert re.search(rf"^([\w.]+\.)?{error}(:|$)", cell.text, re.M), cell.text


#: Snippets whose pages the determinism test runs again: timings, logs on stderr, warnings, a
#: figure, a rich table, threads of XLA.
DETERMINISM_SAMPLE = [
    SNIPPETS / name
    for name in (
        "jit/jit_basic.py",
        "jit/log_compiles.py",
        "jit/print_vs_debug_print.py",
        "training/adamw.py",
        "sharding/visualize_rows.py",
        "profiling/async_dispatch.py",
    )
]


def sample_pages(_item) -> list:
    """What the determinism test reads: the sources of its sample's pages."""
    found = {pages.page_of(path, ROOT) for path in DETERMINISM_SAMPLE if path.is_file()}
    return [source for page in sorted(found) for source in pass_cache.page_sources(page)]


@pytest.mark.inputs.with_args(sample_pages)
def test_snippets_give_the_same_output_twice(filled_store, executor):
    """Determinism: the pages of a sample of snippets (:data:`DETERMINISM_SAMPLE`) run again in a
    fresh kernel give identical normalised outputs."""
    sample = [path for path in DETERMINISM_SAMPLE if path.is_file()]
    assert len(sample) >= 4
    first = {path: outcome(path, executor).text for path in sample}
    with Executor(ROOT) as fresh:
        again = {}
        for page in dict.fromkeys(pages.page_of(path, ROOT) for path in sample):
            result = fresh.execute_again(page)
            for path in sample:
                if pages.page_of(path, ROOT) == page:
                    again[path] = result.cell(path.relative_to(ROOT).as_posix()).text
    for path in sample:
        assert first[path] == again[path], verdict.difference(
            path.relative_to(ROOT).as_posix(), first[path], again[path]
        )


def test_every_snippet_has_an_expected_output_and_no_stray_out_file():
    assert SNIPPETS / "arrays" / "inplace_error.py" in discover()
    missing = [p.relative_to(ROOT).as_posix() for p in discover() if not outputs.expected_path(p).is_file()]
    assert not missing, f"run `make outputs` for: {missing}"
    stray = []
    for p in SNIPPETS.rglob("*.out"):
        snippet, platform = snippet_of(p)
        if not snippet.is_file() or p.name.startswith("_"):
            stray.append(p.relative_to(ROOT).as_posix())
        elif platform and not getattr(
            parse_platforms(source_of(snippet), str(snippet)).get(platform), "differs", False
        ):  # an accelerator's output without the declaration that it differs there
            stray.append(p.relative_to(ROOT).as_posix())
    assert not stray, f"expected outputs without a snippet (or its '# platform: ... differs'): {stray}"


def test_every_snippet_is_shown_by_the_one_page_its_folder_names():
    """From a snippet's path alone one finds the page that shows it (jaxbook.pages.page_of); a
    snippet that no page loads is dead code that nobody reads."""
    shown = [(snippet, page) for page in pages.book_pages(ROOT) for snippet in pages.read(page).snippets()]
    wrong = [
        f"{p.relative_to(ROOT)}: loaded by no page" for p in discover() if p.resolve() not in dict(shown)
    ]
    for snippet, page in shown:
        try:
            home = pages.page_of(snippet, ROOT).relative_to(ROOT)
        except ValueError as exc:
            home = exc
        if home != page.relative_to(ROOT):
            wrong.append(
                f"{snippet.relative_to(ROOT)} is loaded by {page.relative_to(ROOT)}; the rule: {home}"
            )
    assert not wrong, "\n".join(wrong)


def test_out_files_map_to_their_snippets():
    """x.out and an accelerator's x.gpu.out belong to x.py; other dotted names are not platforms."""
    assert snippet_of(SNIPPETS / "a/x.out") == (SNIPPETS / "a/x.py", None)
    assert snippet_of(SNIPPETS / "a/x.gpu.out") == (SNIPPETS / "a/x.py", "gpu")
    assert snippet_of(SNIPPETS / "a/x.tpu.out") == (SNIPPETS / "a/x.py", "tpu")
    assert snippet_of(SNIPPETS / "a/x.cpu.out") == (SNIPPETS / "a/x.cpu.py", None)
    assert outputs.expected_path(SNIPPETS / "a/x.py", "gpu") == SNIPPETS / "a/x.gpu.out"


#: Characters a code box on the site shows without scrolling (the theme's content column).
MAX_LINE = 79


def test_shown_code_fits_the_code_box():
    """Snippets, their helpers and the practice starters and solutions are shown on pages;
    a longer line is cut off at the box's edge. Error declarations may be longer."""
    shown = [
        *SNIPPETS.rglob("*.py"),
        *ROOT.glob("practice/*/*/starter.py"),
        *ROOT.glob("practice/*/*/solution.py"),
    ]
    too_long = [
        f"{path.relative_to(ROOT)}:{number} ({len(line)} chars)"
        for path in shown
        if "__pycache__" not in path.parts
        for number, line in enumerate(source_of(path).splitlines(), start=1)
        if len(line) > MAX_LINE and not DECLARATION.match(line.strip())
    ]
    assert not too_long, "\n".join(too_long)
