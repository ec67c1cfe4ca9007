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


FLOAT16 = "# tolerance: rtol=1e-3 -- float16 training: the CPU decides the last digits\n"
#: name: (snippet, expected output). The snippets print what another CPU prints, or a real change.
NUMBERS = {
    "float16": (
        FLOAT16 + "print('w after 200 steps: 2.9968 (float32)')\n",
        "w after 200 steps: 2.9973 (float32)\n",
    ),
    "float32": ("print('b:', 0.11194122)\n", "b: 0.11194123\n"),
    "moved": (
        FLOAT16 + "print('w after 200 steps: 2.9873 (float32)')\n",
        "w after 200 steps: 2.9973 (float32)\n",
    ),
    "count": ("print('good steps:', 201)\n", "good steps: 200\n"),
    "dtype": ("print('w: 2.9973 (float16)')\n", "w: 2.9973 (float32)\n"),
    "flag": ("print('finite:', 1.0 > 2.0)\n", "finite: True\n"),
}


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
    for name, (source, expected) in NUMBERS.items():
        book.snippet(f"numbers/{name}.py", source, expected)
    book.snippet("missing/none.py", "print('no expected file')\n")
    book.snippet("dep/old.py", UNDECLARED, "whatever\n")
    book.page("twins", "twins/one.py", "twins/two.py", "twins/plot.py", "twins/declared.py")
    book.page("flip", "flip/check.py", "flip/after.py", "flip/later.py")
    book.page("mixed", "mixed/differs.py", "mixed/breaks.py")
    book.page("numbers", *(f"numbers/{name}.py" for name in NUMBERS))
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


def test_floats_within_tolerance_pass_and_every_other_change_fails_naming_the_snippet(build):
    """Numbers are compared as numbers (jaxbook.compare): a float within its tolerance (declared,
    or the default) passes; a float beyond it, an integer, a dtype and a boolean each fail."""
    output = build.output
    for name in ("float16", "float32"):
        assert f"snippets/numbers/{name}.py" not in output, output
    for name in ("moved", "count", "dtype", "flag"):
        assert f"snippets/numbers/{name}.py: output differs from snippets/numbers/{name}.out" in output
    assert "line 1: 2.9873 where 2.9973 was expected" in output
    assert "4 problems on this page" in output
    assert "w after 200 steps: 2.9968" in build.page("numbers")  # the page shows the real output
