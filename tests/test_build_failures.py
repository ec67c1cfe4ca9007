"""The build fails, naming the page and the snippet file, whenever a published output could lie.

One throwaway book holds a page for each way a page can break the contract (and a good page),
built once and then again; each test finds its page's failure in the report Sphinx gives for it.
"""

from __future__ import annotations

import re

import pytest

from tests.helpers import Book

# Builds run side by side: their kernels talk over Unix sockets (tests/test_kernel_start.py).
# Throwaway books of the tests' own: none of the book's content is read (tests/pass_cache.py).
pytestmark = [pytest.mark.build, pytest.mark.inputs()]

FINE = "print('fine')\n"
SUBCLASS = """\
    # raises: jax.errors.ConcretizationTypeError
    import jax

    @jax.jit
    def f(x):
        return 1 if x > 0 else 0

    f(1.0)
    """


#: A dropdown's title with inline code: not a title a backtick fence can hold.
DROPDOWN = "Why `jit` waits"
#: The tests of the broken book run on one xdist worker, which builds it once for all of them.
broken_book = pytest.mark.xdist_group("broken-book")


@pytest.fixture(scope="module")
def broken(tmp_path_factory):
    """A book with one bad page per failure, built twice (nothing changed in between)."""
    book = Book(tmp_path_factory.mktemp("broken"))
    book.snippet("demo/ok.py", FINE)
    book.snippet("demo/boom.py", "import jax.numpy as jnp\n\nx = jnp.ones(3)\nraise ValueError('boom')\n")
    book.page("boom", "demo/ok.py", "demo/boom.py")
    book.snippet("demo/quiet.py", "# raises: TypeError\nimport jax.numpy as jnp\n\nx = jnp.ones(3)\n")
    book.page("quiet", "demo/quiet.py")
    # jax.errors.TracerBoolConversionError is a subclass of ConcretizationTypeError: not good enough.
    book.snippet("demo/sub.py", SUBCLASS)
    book.page("sub", "demo/sub.py")
    book.page("missing", "demo/ok.py", "demo/nowhere.py")
    book.snippet("demo/typo.py", "# What goes wrong:\n# raises: TypeEror\nx = 1\n")
    book.snippet("demo/late.py", "x = 1\n# raises: TypeError\n")
    book.page("typo", "demo/typo.py", "demo/late.py")
    path = book.page("inline")
    path.write_text(path.read_text() + "\n```{code-cell} ipython3\nprint('not from a snippet')\n```\n")
    book.page("bare", "demo/ok.py", top_matter=False)
    # MyST-NB's own ways to let a failing cell through: a cell tag, a page's execution settings.
    path = book.page("tagged")
    path.write_text(
        path.read_text() + "\n```{code-cell} ipython3\n:load: ../snippets/demo/boom.py\n"
        ":tags: [raises-exception]\n```\n"
    )
    path = book.page("allowed", "demo/boom.py")
    text = path.read_text()
    path.write_text(text.replace("---\n", "---\nmystnb:\n  execution_allow_errors: true\n", 1))
    book.page("good", "demo/ok.py", body=f"```{{dropdown}} {DROPDOWN.replace('`', '')}\nProse.\n```\n")
    # A backtick in a fenced directive's title: the closing fence would swallow the cell after it.
    book.page("dropdown", "demo/ok.py", body=f"```{{dropdown}} {DROPDOWN}\nProse.\n```\n")
    # A directive the reader's notebook cannot show (jaxbook/downloads.py).
    book.page("epigraph", "demo/ok.py", body="```{epigraph}\nA quotation.\n```\n")
    return book, book.build(), book.build()


def reports(build, page: str) -> str:
    """Every warning or error Sphinx reported about guide/<page>, with the lines that follow it
    (a failed execution's traceback), up to the next report."""
    blocks = re.split(r"\n(?=\S*(?:WARNING|ERROR):|\S+: (?:WARNING|ERROR):)", build.output)
    return "\n".join(
        b
        for b in blocks
        if re.match(rf"\S*guide/{page}(\.md)?[:\s]", b) and re.search(r"(WARNING|ERROR):", b)
    )


def assert_reported(build, page, *needles):
    assert build.returncode != 0, build.output
    text = reports(build, page)
    assert text, f"nothing reported about guide/{page}:\n{build.output}"
    for needle in needles:
        assert needle in text, f"{needle!r} not in the report about guide/{page}:\n{text}"


#: Each bad page of the broken book: what its report says, its location first.
REPORTED = {
    "boom": ("snippets/demo/boom.py:4", "ValueError: boom", "declares no error"),
    "quiet": ("snippets/demo/quiet.py:1", "declares '# raises: TypeError' but raised nothing"),
    # a subclass of the declared type, located at the line inside f that raised it
    "sub": ("snippets/demo/sub.py:6", "but raised jax.errors.TracerBoolConversionError"),
    "typo": (
        "snippets/demo/typo.py:2",
        "'TypeEror' is not an exception class",
        "snippets/demo/late.py:2",
        "must be in the comment block at the top",
    ),
    "inline": ("guide/inline.md:11", "must not contain inline code"),
    "bare": ("guide/bare.md:1", "must start with the top matter"),
    "allowed": ("guide/allowed.md:3", "sets 'execution_allow_errors' under 'mystnb'"),
    "epigraph": ("epigraph.md:9", "the directive {epigraph} has no form"),
    "missing": (":load: ../snippets/demo/nowhere.py", "snippet file not found: snippets/demo/nowhere.py"),
    "tagged": (":tags: [raises-exception]", "the tag 'raises-exception'"),
    "dropdown": (
        f"```{{dropdown}} {DROPDOWN}",
        "is not read as a directive: a backtick fence's title cannot contain a backtick",
        "swallows what follows (the code cell at line 14)",
    ),
}


def location(book, page: str, where: str) -> str:
    """``where``, or the page and line of the line of its source that ``where`` is."""
    lines = (book.root / "guide" / f"{page}.md").read_text().splitlines()
    return f"guide/{page}.md:{lines.index(where) + 1}" if where in lines else where


@broken_book
@pytest.mark.parametrize("page", REPORTED)
def test_each_broken_contract_fails_the_build_naming_its_file_and_line(broken, page):
    where, *needles = REPORTED[page]
    assert_reported(broken[1], page, location(broken[0], page, where), *needles)


@broken_book
def test_a_rejected_cell_is_not_published_and_a_good_page_is(broken):
    assert "ValueError" not in broken[1].page("tagged")  # the cell is not run, let alone published
    assert not (broken[1].html / "_sources" / "guide" / "epigraph.ipynb").exists()
    assert not reports(broken[1], "good")
    assert "fine" in broken[1].page("good")


def test_one_warning_alone_fails_the_build(tmp_path):
    book = Book(tmp_path)
    book.page("warn", body="See {ref}`a-label-that-does-not-exist`.")
    assert_reported(book.build(), "warn", "a-label-that-does-not-exist", "WARNING")


@broken_book
def test_failed_page_is_executed_again_on_the_next_build(broken):
    # Nothing changed, yet every failed page runs again and fails again: no stale pass.
    again = broken[2]
    executed = set(re.findall(r"jaxbook: executed guide/(\w+)\.md", again.output))
    assert {"boom", "quiet", "sub"} <= executed, again.output
    assert "good" not in executed
    for page in ("boom", "quiet", "sub"):
        assert_reported(again, page, *REPORTED[page])


def test_snippet_that_times_out_names_file_and_line(tmp_path, monkeypatch):
    monkeypatch.setenv("JAXBOOK_SNIPPET_TIMEOUT", "2")
    book = Book(tmp_path)
    book.snippet("demo/slow.py", "import time\n\nwhile True:\n    time.sleep(0.1)\n")
    book.page("slow", "demo/slow.py")
    assert_reported(book.build(), "slow", "snippets/demo/slow.py:4: timed out after 2 s")
