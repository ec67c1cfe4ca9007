"""``make page``: one page and what the theme's navigation needs, built without reading again
what has not changed (a throwaway book whose practice page sits three toctrees deep)."""

from __future__ import annotations

import os
import subprocess

import pytest

from jaxbook import ROOT, layout, pages
from jaxbook.build import page_command
from tests.helpers import TOP_MATTER, Book

# Builds one after another; a throwaway book of its own, none of the book's content.
pytestmark = [pytest.mark.build, pytest.mark.xdist_group("page-book"), pytest.mark.inputs()]

TOCTREE = "```{{toctree}}\n:hidden:\n\n{}\n```\n"


@pytest.fixture(scope="module")
def book(tmp_path_factory):
    """index -> guide/a (a code cell), practice/index -> practice/arrays/index -> its problem."""
    root = tmp_path_factory.mktemp("page") / "book"
    root.mkdir()
    book = Book(root, outputs=True)
    book.snippet("a/hello.py", "print('hello')\n", "hello\n")
    book.snippet("practice/masked.py", "print('masked')\n", "masked\n")
    book.page("a", "a/hello.py")
    (root / "index.md").write_text("# Book\n\n" + TOCTREE.format("guide/a\npractice/index"))
    (root / "practice" / "arrays").mkdir(parents=True)
    (root / "practice" / "index.md").write_text("# Practice\n\n" + TOCTREE.format("Arrays <arrays/index>"))
    (root / "practice" / "arrays" / "index.md").write_text("# Arrays\n\n" + TOCTREE.format("masked"))
    (root / "practice" / "arrays" / "masked.md").write_text(
        TOP_MATTER + "# Masked\n\n```{code-cell} ipython3\n:load: ../../snippets/practice/masked.py\n```\n"
    )
    return root


def page(root, name):
    env = dict(os.environ, JAXBOOK_ROOT=str(root), PYTHONPATH=str(ROOT))
    env.pop("JAXBOOK_PAGE_DIR", None)
    return subprocess.run(
        page_command([name], root), cwd=root, env=env, capture_output=True, text=True, timeout=600
    )


def test_the_preview_holds_the_page_its_toctree_path_and_its_pages_without_code(book):
    assert pages.preview(book, ["practice/arrays/masked.md"]) == [
        "index.md",
        "practice/index.md",
        "practice/arrays/index.md",
        "practice/arrays/masked.md",
    ]
    assert pages.preview(book, ["guide/a.md"]) == ["index.md", "guide/a.md"]
    # index.md alone would give the theme an empty navigation: its pages without code come along
    assert pages.preview(book, ["index.md"]) == ["index.md", "practice/index.md"]
    with pytest.raises(ValueError, match="guide/nothere.md: not a page of the book"):
        pages.preview(book, ["guide/nothere.md"])


def test_the_preview_holds_the_glossary_whose_terms_a_page_may_link(tmp_path):
    (tmp_path / "guide").mkdir()
    (tmp_path / "docs").mkdir()
    (tmp_path / "index.md").write_text("# Book\n\n" + TOCTREE.format("guide/a\ndocs/words\ndocs/other"))
    (tmp_path / "guide" / "a.md").write_text("# A\n\nA {term}`tracer`.\n")
    (tmp_path / "docs" / "words.md").write_text("# Words\n\n```{glossary}\ntracer\n  A stand-in.\n```\n")
    (tmp_path / "docs" / "other.md").write_text("# Other\n\nThe word {glossary} in prose defines nothing.\n")
    assert pages.preview(tmp_path, ["guide/a.md"]) == ["index.md", "guide/a.md", "docs/words.md"]


def test_a_page_three_toctrees_deep_is_built_with_its_parents(book):
    built = page(book, "practice/arrays/masked.md")
    assert built.returncode == 0, built.stdout + built.stderr
    html = book / layout.PAGE
    assert "masked" in (html / "practice/arrays/masked.html").read_text()
    assert (html / "practice/arrays/index.html").is_file() and (html / "practice/index.html").is_file()
    assert not (html / "guide/a.html").exists()  # not on the page's path: not built


def test_the_front_page_is_built(book):
    built = page(book, "index.md")
    assert built.returncode == 0, built.stdout + built.stderr
    assert (book / layout.PAGE / "index.html").is_file()


def test_a_second_preview_of_an_unchanged_page_reads_and_executes_nothing(book):
    first = page(book, "guide/a.md")
    assert first.returncode == 0, first.stdout + first.stderr
    doctrees = book / layout.PAGE / ".doctrees"  # a page read is a doctree written
    read = {p: p.stat().st_mtime_ns for p in doctrees.rglob("*.doctree")}
    again = page(book, "guide/a.md")
    assert again.returncode == 0, again.stdout + again.stderr
    assert {p: p.stat().st_mtime_ns for p in doctrees.rglob("*.doctree")} == read
    assert "jaxbook: executed" not in again.stdout
    # ... and an edit to the page's snippet is read (and executed) again
    (book / "snippets/a/hello.py").write_text("print('hello again')\n")
    edited = page(book, "guide/a.md")
    assert "jaxbook: executed guide/a.md" in edited.stdout
    assert edited.returncode != 0  # its .out still says hello
    assert "output differs" in edited.stdout + edited.stderr
