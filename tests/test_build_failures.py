"""The build fails, naming the page and the snippet file, whenever a published output could lie."""
from __future__ import annotations

import pytest

from tests.helpers import Book

# Builds start Jupyter kernels, which take free TCP ports: concurrent builds can race for the same
# port ("Address already in use"), so every building test runs in the one "site" xdist group.
pytestmark = [pytest.mark.build, pytest.mark.xdist_group("site")]

FINE = "print('fine')\n"


@pytest.fixture
def book(tmp_path):
    return Book(tmp_path)


def assert_fails(build, *needles):
    assert build.returncode != 0, build.output
    for needle in needles:
        assert needle in build.output, f"{needle!r} not in build output:\n{build.output}"


def test_undeclared_exception_fails_the_build(book):
    book.snippet("demo/ok.py", FINE)
    book.snippet("demo/boom.py", "import jax.numpy as jnp\n\nx = jnp.ones(3)\nraise ValueError('boom')\n")
    book.page("boom", "demo/ok.py", "demo/boom.py")
    build = book.build()
    assert_fails(build, "guide/boom", "snippets/demo/boom.py:4", "ValueError: boom",
                 "declares no error")


def test_declared_error_that_is_not_raised_fails_the_build(book):
    book.snippet("demo/quiet.py", "# raises: TypeError\nimport jax.numpy as jnp\n\nx = jnp.ones(3)\n")
    book.page("quiet", "demo/quiet.py")
    assert_fails(book.build(), "guide/quiet", "snippets/demo/quiet.py:1",
                 "declares '# raises: TypeError' but raised nothing")


def test_different_exception_type_fails_the_build(book):
    book.snippet("demo/other.py", "# raises: TypeError\nimport jax.numpy as jnp\n\nsteps = int(jnp.ones(3).sum())\nint('three')\n")
    book.page("other", "demo/other.py")
    assert_fails(book.build(), "guide/other", "snippets/demo/other.py:5",
                 "declares '# raises: TypeError' but raised ValueError")


def test_subclass_of_declared_type_fails_the_build(book):
    # jax.errors.TracerBoolConversionError is a subclass of ConcretizationTypeError: not good enough.
    book.snippet("demo/sub.py", """\
        # raises: jax.errors.ConcretizationTypeError
        import jax

        @jax.jit
        def f(x):
            return 1 if x > 0 else 0

        f(1.0)
        """)
    book.page("sub", "demo/sub.py")
    # The location is the line inside f where the error was raised.
    assert_fails(book.build(), "guide/sub", "snippets/demo/sub.py:6",
                 "but raised jax.errors.TracerBoolConversionError")


def test_message_pattern_mismatch_fails_the_build(book):
    book.snippet("demo/msg.py", "# raises: ValueError\n# match: ^never$\nraise ValueError('other text')\n")
    book.page("msg", "demo/msg.py")
    assert_fails(book.build(), "guide/msg", "snippets/demo/msg.py:3", "does not match '# match: ^never$'")


def test_missing_snippet_file_fails_the_build(book):
    book.snippet("demo/ok.py", FINE)
    page = book.page("missing", "demo/ok.py", "demo/nowhere.py")
    line = page.read_text().splitlines().index(":load: ../snippets/demo/nowhere.py") + 1
    assert_fails(book.build(), f"guide/missing.md:{line}", "snippet file not found: snippets/demo/nowhere.py")


def test_sphinx_warning_fails_the_build(book):
    book.snippet("demo/ok.py", FINE)
    book.page("warn", "demo/ok.py", body="See {ref}`a-label-that-does-not-exist`.")
    assert_fails(book.build(), "guide/warn.md", "a-label-that-does-not-exist", "WARNING")


def test_malformed_declaration_names_file_and_line(book):
    book.snippet("demo/typo.py", "# What goes wrong:\n# raises: TypeEror\nx = 1\n")
    book.snippet("demo/late.py", "x = 1\n# raises: TypeError\n")
    book.page("typo", "demo/typo.py", "demo/late.py")
    assert_fails(book.build(), "guide/typo.md", "snippets/demo/typo.py:2", "'TypeEror' is not an exception class",
                 "snippets/demo/late.py:2", "must be in the comment block at the top")


def test_inline_code_cell_is_rejected(book):
    book.page("inline")
    path = book.root / "guide" / "inline.md"
    path.write_text(path.read_text() + "\n```{code-cell} ipython3\nprint('not from a snippet')\n```\n")
    assert_fails(book.build(), "guide/inline.md:11", "must not contain inline code")


def test_page_without_top_matter_is_rejected(book):
    book.snippet("demo/ok.py", FINE)
    book.page("bare", "demo/ok.py", top_matter=False)
    assert_fails(book.build(), "guide/bare.md:1", "must start with the top matter")


def test_snippet_that_times_out_names_file_and_line(book, monkeypatch):
    monkeypatch.setenv("JAXBOOK_SNIPPET_TIMEOUT", "2")
    book.snippet("demo/slow.py", "import time\n\nwhile True:\n    time.sleep(0.1)\n")
    book.page("slow", "demo/slow.py")
    assert_fails(book.build(), "guide/slow", "snippets/demo/slow.py:4: timed out after 2 s")


def test_failed_page_is_executed_again_on_the_next_build(book):
    book.snippet("demo/boom.py", "raise ValueError('boom')\n")
    book.page("boom", "demo/boom.py")
    assert_fails(book.build(), "snippets/demo/boom.py")
    assert_fails(book.build(), "snippets/demo/boom.py")  # nothing changed: still fails, no stale pass
