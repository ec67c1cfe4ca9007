"""The build compares every snippet's output with its expected .out file (one throwaway build,
several pages): one warning per failing cell, at its line, with the command that fixes or accepts it;
the details in the page's report file; every failing cell of every page in one build."""

from __future__ import annotations

import json
import re

import pytest

from tests.helpers import Book

# One throwaway book for the module; none of the book's content is read (tests/pass_cache.py).
pytestmark = [pytest.mark.build, pytest.mark.xdist_group("outputs-book"), pytest.mark.inputs()]

# Identical text in two files: each must run, and be reported, under its own name.
TWIN = "from pathlib import Path\n\nprint('I am', Path(__file__).name)\n"
PLOT = "import matplotlib.pyplot as plt\n\nplt.plot([0, 1], [1, 0])\nplt.title('a line')\nplt.show()\n"
WARNS = "import warnings\n\nwarnings.warn('old_api is deprecated', DeprecationWarning)\n"
FLOAT16 = "# tolerance: rtol=1e-3 -- float16 training: the CPU decides the last digits\n"


@pytest.fixture(scope="module")
def book(tmp_path_factory):
    book = Book(tmp_path_factory.mktemp("outputs"), outputs=True)
    book.snippet("twins/one.py", TWIN, "I am one.py\n")
    book.snippet("twins/two.py", TWIN, "I am two.py\n")
    book.snippet("twins/plot.py", PLOT, "[display: image/png]\n")
    book.snippet(
        "twins/declared.py",
        "# warns: DeprecationWarning\n" + WARNS,
        # the line the reader sees (the declaration is not shown): 3, not the file's 4
        "snippets/twins/declared.py:3: DeprecationWarning: old_api is deprecated\n"
        "  warnings.warn('old_api is deprecated', DeprecationWarning)\n",
    )
    book.snippet("flip/check.py", "print('same:', 1 + 1 == 3)\n", "same: True\n")
    book.snippet("flip/after.py", "print('after')\n", "after\n")
    book.snippet("flip/later.py", "print('later:', 2)\n", "later: 1\n")
    book.snippet("mixed/differs.py", "print('mixed:', 2)\n", "mixed: 1\n")
    book.snippet("mixed/breaks.py", "raise ValueError('undeclared')\n", "\n")
    # What another CPU prints, within the declared tolerance, and a real change beyond it
    # (tests/test_compare.py has every other kind of difference).
    avx2 = "w after 200 steps: 2.9973 (float32)\n"
    book.snippet("numbers/float16.py", FLOAT16 + "print('w after 200 steps: 2.9968 (float32)')\n", avx2)
    book.snippet("numbers/moved.py", FLOAT16 + "print('w after 200 steps: 2.9873 (float32)')\n", avx2)
    book.snippet("missing/none.py", "print('no expected file')\n")
    book.snippet("dep/old.py", WARNS, "whatever\n")
    book.page("twins", "twins/one.py", "twins/two.py", "twins/plot.py", "twins/declared.py")
    book.page("flip", "flip/check.py", "flip/after.py", "flip/later.py")
    book.page("mixed", "mixed/differs.py", "mixed/breaks.py")
    book.page("numbers", "numbers/float16.py", "numbers/moved.py")
    book.page("missing", "missing/none.py")
    book.page("dep", "dep/old.py")
    book.page("other", body="A reference to {ref}`a-label-that-does-not-exist`: a Sphinx warning of its own.")
    return book


@pytest.fixture(scope="module")
def build(book):
    return book.build()


def test_snippets_with_identical_text_run_under_their_own_names(build):
    html = build.page("twins")
    assert "I am one.py" in html and "I am two.py" in html
    assert "snippets/twins/one.py" in html and "snippets/twins/two.py" in html
    assert "<img" in html  # the figure, marked in its expected output
    assert "snippets/twins/" not in build.output, build.output  # all matched their .out


@pytest.fixture(scope="module")
def published(tmp_path_factory):
    """A figure's page built with the publishing extensions, which size its image (jaxbook.a11y)."""
    book = Book(tmp_path_factory.mktemp("published"), publishing=True)
    book.snippet("twins/plot.py", PLOT)
    page = book.page("twins", "twins/plot.py")
    cell = ":load: ../snippets/twins/plot.py"
    page.write_text(page.read_text().replace(cell, cell + '\n:mystnb: {image: {alt: "A test figure."}}'))
    return book.build()


def test_a_figure_has_its_pixel_size_and_loads_lazily(published):
    """The browser keeps the figure's place before it arrives (Lighthouse's "unsized-images") and
    fetches it only when the reader nears it."""
    from PIL import Image

    assert published.returncode == 0, published.output
    img = re.search(r"<img [^>]*>", published.page("twins"))[0]
    with Image.open(published.html / "guide" / re.search(r'src="([^"]+)"', img)[1]) as picture:
        width, height = picture.size
    assert f'width="{width}"' in img and f'height="{height}"' in img, img
    assert 'loading="lazy"' in img, img


def report(build, page: str) -> str:
    """The details the build wrote for ``guide/<page>`` (outside the published site)."""
    return (build.html.parent / "reports" / "guide" / f"{page}.txt").read_text(encoding="utf-8")


def warnings_about(build, snippet: str) -> list[str]:
    """The build's warning lines that name ``snippet``."""
    return [line for line in build.output.splitlines() if "WARNING" in line and snippet in line]


def test_changed_output_fails_in_one_line_with_the_command_and_the_diff_in_the_report(build):
    (line,) = warnings_about(build, "snippets/flip/check.py")
    assert "guide/flip.md:" in line
    assert "snippets/flip/check.py: output differs from its .out (line 1: the text differs" in line
    assert "`make outputs SNIPPET=snippets/flip/check.py`" in line
    assert "-same: True" not in build.output  # the diff is in the report, not on the terminal
    details = report(build, "flip")
    assert "-same: True\n+same: False\n" in details
    assert "same: False" in build.page("flip")  # the page shows the real output
    assert not (build.html / "reports").exists()  # nothing of it is published


def test_every_problem_of_a_page_is_reported_by_one_build_one_line_each(build):
    """Every cell of a page runs and gets its verdict: each difference is its own warning, and the
    build ends with the list of every failing cell, one line each, and how to accept the outputs."""
    assert build.returncode != 0, build.output
    assert len(warnings_about(build, "snippets/flip/later.py")) == 1
    assert "-later: 1\n+later: 2" in report(build, "flip")
    assert not warnings_about(build, "snippets/flip/after.py")  # it ran, and matched its .out
    assert "after" in build.page("flip")
    summary = build.output[build.output.index("failing cell(s) in the book") :]
    findings = [line for line in summary.splitlines()[1:] if line.startswith("  guide/")]
    warnings = [line for line in build.output.splitlines() if ": WARNING: " in line]
    about_cells = [w for w in warnings if re.search(r"\[jaxbook\.(contract|differs|missing)\]$", w)]
    assert len(findings) == len(about_cells) == 7, (findings, warnings)
    # the broken reference of guide/other.md is a warning, but no failing cell
    assert any("a-label-that-does-not-exist" in w for w in warnings), warnings
    assert "make outputs FAILED=1" in summary
    failed = json.loads((build.html.parent / "failures.json").read_text())["snippets"]
    assert "snippets/flip/check.py" in failed and "snippets/missing/none.py" in failed
    assert "snippets/mixed/breaks.py" not in failed  # a broken contract is no output to accept


def test_a_difference_is_reported_beside_a_broken_contract_on_the_same_page(build):
    assert warnings_about(build, "snippets/mixed/differs.py")
    (line,) = warnings_about(build, "snippets/mixed/breaks.py")
    assert "raised ValueError: undeclared" in line


def test_missing_expected_output_fails_with_the_command(build):
    (line,) = warnings_about(build, "snippets/missing/none.py")
    assert "no expected output yet" in line and "make outputs SNIPPET=snippets/missing/none.py" in line


def test_undeclared_deprecation_fails_and_declared_one_passes(build):
    assert (
        "snippets/dep/old.py:3: DeprecationWarning while the snippet ran: old_api is "
        "deprecated" in build.output
    )
    assert "snippets/twins/declared.py" not in build.output


def test_a_float_within_its_declared_tolerance_passes_and_one_beyond_it_fails(build):
    assert "snippets/numbers/float16.py" not in build.output, build.output
    (line,) = warnings_about(build, "snippets/numbers/moved.py: output differs from its .out")
    assert "line 1: 2.9873 where 2.9973 was expected" in line
    assert "w after 200 steps: 2.9968" in build.page("numbers")  # the page shows the real output


def test_a_page_with_a_failing_cell_is_read_again_by_the_next_build(book, build):
    # Nothing changed and every .out exists: only the failures make Sphinx read a page again.
    again = book.build()
    reading = again.output[again.output.find("updating environment") : again.output.find("looking for now")]
    reread = set(re.findall(r"guide/(\w+)", reading))
    assert {"flip", "mixed", "numbers"} <= reread, again.output
    assert "twins" not in reread, again.output
    assert warnings_about(again, "snippets/flip/check.py")
