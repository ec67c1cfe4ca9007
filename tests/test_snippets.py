"""Every snippet of the book, discovered automatically, run in the book's kernel under its
contract, its output compared with the committed expected output (snippets/**/*.out).

A test reuses the build's record of the snippet (jaxbook.records) when one matches the files
on disk and this JAX; otherwise it runs the snippet in a fresh kernel.

The test id is the snippet's path under snippets/, the name shown above its cell on the site:
    pytest "tests/test_snippets.py::test_snippet[arrays/at_methods.py]"
"""

from __future__ import annotations

import re

import pytest

from jaxbook import ROOT, outputs, pages, records
from jaxbook.snippet import DECLARATION, parse_declaration, parse_tolerance, source_of

SNIPPETS = ROOT / "snippets"


def discover():
    """Snippet files: every .py under snippets/ except helpers (_name.py) and caches."""
    return sorted(
        p for p in SNIPPETS.rglob("*.py") if not p.name.startswith("_") and "__pycache__" not in p.parts
    )


def outcome(path):
    """What the book's kernel saw when it ran ``path``: the build's record when it describes the
    files on disk and this JAX (jaxbook.records), else a fresh run in the kernel."""
    record = records.matching(path, ROOT)
    if record is None:
        with outputs.Kernel(ROOT) as kernel:
            kernel.run(path, write=False)
        record = records.matching(path, ROOT)
    assert record is not None, f"the kernel wrote no record for {path.relative_to(ROOT)}"
    return record


@pytest.mark.parametrize("path", discover(), ids=lambda p: p.relative_to(SNIPPETS).as_posix())
def test_snippet(path, build_records):
    """The contract holds (declared error raised, no undeclared deprecation), and the output
    matches the committed expected output (text exactly, floats within the snippet's tolerance)."""
    name = path.relative_to(ROOT).as_posix()
    record = outcome(path)
    assert record["contract"] is None, record["contract"]
    tolerance = parse_tolerance(source_of(path), name)
    problem = outputs.difference(name, outputs.read_expected(path), record["output"], tolerance)
    assert problem is None, problem
    declaration = parse_declaration(source_of(path), str(path))
    if declaration is not None:
        # The declared error was raised and its trimmed traceback is part of the output.
        assert record["raised"] is not None
        error = re.escape(declaration.raises.rsplit(".", 1)[-1])
        assert "Traceback (most recent call last):" in record["output"]
        assert re.search(rf"^([\w.]+\.)?{error}(:|$)", record["output"], re.M), record["output"]


def test_snippets_give_the_same_output_twice(build_records):
    """Determinism: a sample of snippets (timings, logs on stderr, warnings, a figure, a rich
    table, threads of XLA) run twice give identical normalised outputs: the build's run (or a
    fresh kernel's, without a build) and another fresh kernel's."""
    sample = [
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
    sample = [path for path in sample if path.is_file()]
    assert len(sample) >= 4
    runs = [{path: outcome(path)["output"] for path in sample}]
    with outputs.Kernel(ROOT) as kernel:
        for path in sample:
            kernel.run(path, write=False)
    runs.append({path: records.matching(path, ROOT)["output"] for path in sample})
    for path in sample:
        assert runs[0][path] == runs[1][path], outputs.difference(
            path.relative_to(ROOT).as_posix(), runs[0][path], runs[1][path]
        )


def test_every_snippet_has_an_expected_output_and_no_stray_out_file():
    missing = [p.relative_to(ROOT).as_posix() for p in discover() if not outputs.expected_path(p).is_file()]
    assert not missing, f"run `make outputs` for: {missing}"
    stray = [
        p.relative_to(ROOT).as_posix()
        for p in SNIPPETS.rglob("*.out")
        if not p.with_suffix(".py").is_file() or p.name.startswith("_")
    ]
    assert not stray, f"expected outputs without a snippet: {stray}"


def test_discovery_finds_the_snippets():
    names = {p.relative_to(SNIPPETS).as_posix() for p in discover()}
    assert "arrays/inplace_error.py" in names
    assert not any(name.rsplit("/", 1)[-1].startswith("_") for name in names)


def test_every_snippet_is_shown_on_a_page():
    """A snippet that no page loads is dead code that nobody reads."""
    loaded = {path for page in pages.book_pages(ROOT) for path in pages.loaded_snippets(page)}
    unused = [p.relative_to(ROOT).as_posix() for p in discover() if p.resolve() not in loaded]
    assert not unused, f"snippets not loaded by any page: {unused}"


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
