"""The build compares every snippet's output with its expected .out file (one throwaway build,
several pages: a page stops at its first snippet that breaks its contract, so each such failure
gets its own page; outputs that differ are all reported, with the page's last snippet)."""

from __future__ import annotations

import pytest

from tests.helpers import Book

pytestmark = [pytest.mark.build, pytest.mark.xdist_group("outputs-book")]  # one build for the module

# Identical text in two files: each must run, and be reported, under its own name.
TWIN = "from pathlib import Path\n\nprint('I am', Path(__file__).name)\n"
PLOT = "import matplotlib.pyplot as plt\n\nplt.plot([0, 1], [1, 0])\nplt.title('a line')\nplt.show()\n"
DECLARED = (
    "# warns: DeprecationWarning\nimport warnings\n\n"
    "warnings.warn('old_api is deprecated', DeprecationWarning)\n"
)
UNDECLARED = "import warnings\n\nwarnings.warn('old_api is deprecated', DeprecationWarning)\n"


@pytest.fixture(scope="module")
def build(tmp_path_factory):
    book = Book(tmp_path_factory.mktemp("outputs"), outputs=True)
    book.snippet("twins/one.py", TWIN, "I am one.py\n")
    book.snippet("twins/two.py", TWIN, "I am two.py\n")
    book.snippet("twins/plot.py", PLOT, "[display: image/png]\n")
    book.snippet(
        "twins/declared.py",
        DECLARED,
        "snippets/twins/declared.py:4: DeprecationWarning: old_api is deprecated\n"
        "  warnings.warn('old_api is deprecated', DeprecationWarning)\n",
    )
    book.snippet("flip/check.py", "print('same:', 1 + 1 == 3)\n", "same: True\n")
    book.snippet("flip/after.py", "print('after')\n", "after\n")
    book.snippet("flip/later.py", "print('later:', 2)\n", "later: 1\n")
    book.snippet("mixed/differs.py", "print('mixed:', 2)\n", "mixed: 1\n")
    book.snippet("mixed/breaks.py", "raise ValueError('undeclared')\n", "\n")
    book.snippet("missing/none.py", "print('no expected file')\n")
    book.snippet("dep/old.py", UNDECLARED, "whatever\n")
    book.page("twins", "twins/one.py", "twins/two.py", "twins/plot.py", "twins/declared.py")
    book.page("flip", "flip/check.py", "flip/after.py", "flip/later.py")
    book.page("mixed", "mixed/differs.py", "mixed/breaks.py")
    book.page("missing", "missing/none.py")
    book.page("dep", "dep/old.py")
    return book.build()


def test_the_build_fails(build):
    assert build.returncode != 0, build.output


def test_snippets_with_identical_text_run_under_their_own_names(build):
    html = build.page("twins")
    assert "I am one.py" in html and "I am two.py" in html
    assert "snippets/twins/one.py" in html and "snippets/twins/two.py" in html
    assert "snippets/twins/" not in build.output, build.output  # both matched their .out


def test_a_figure_is_published_and_marked_in_the_expected_output(build):
    assert "<img" in build.page("twins")


def test_changed_output_fails_naming_the_snippet_with_a_diff_and_the_command(build):
    output = build.output
    assert "guide/flip" in output
    assert "snippets/flip/check.py: output differs from snippets/flip/check.out" in output
    assert "-same: True" in output and "+same: False" in output
    assert "make outputs SNIPPET=snippets/flip/check.py" in output
    assert "same: False" in build.page("flip")  # the page shows the real output


def test_every_output_that_differs_on_a_page_is_reported_by_one_build(build):
    """The page goes on after a difference: the next snippets run, and the last one fails with
    every difference of the page (one build, not one build per difference)."""
    output = build.output
    assert "2 problems on this page" in output
    assert "snippets/flip/later.py: output differs from snippets/flip/later.out" in output
    assert "-later: 1" in output and "+later: 2" in output
    assert "make outputs SNIPPET=snippets/flip/later.py" in output
    assert "snippets/flip/after.py" not in output  # it ran, and matched its .out
    assert "after" in build.page("flip")


def test_a_difference_is_reported_with_the_contract_break_that_stops_the_page(build):
    output = build.output
    assert "snippets/mixed/differs.py: output differs from snippets/mixed/differs.out" in output
    assert "snippets/mixed/breaks.py" in output and "ValueError: undeclared" in output


def test_missing_expected_output_fails_with_the_same_instruction(build):
    assert "snippets/missing/none.out does not exist" in build.output
    assert "make outputs SNIPPET=snippets/missing/none.py" in build.output


def test_undeclared_deprecation_fails_and_declared_one_passes(build):
    assert (
        "snippets/dep/old.py:3: DeprecationWarning while the snippet ran: old_api is "
        "deprecated" in build.output
    )
    assert "snippets/twins/declared.py" not in build.output
