"""How the build finds a page's code cells (jaxbook.pages, with MyST's own parser)."""

from pathlib import Path

from jaxbook import ROOT, pages

PAGE = """\
---
file_format: mystnb
---
# Title

````md
```{code-cell} ipython3
:load: ../snippets/example/shown_not_run.py
```
````

```{code-cell} ipython3
:tags: [hide-input]
:load: ../snippets/a/one.py
```

```{code-cell} ipython3
---
tags: [hide-output]
load: ../snippets/a/two.py
---
```

```{code-cell} ipython3
print("inline")
```

:::{note}
```{code-cell} ipython3
:load: ../snippets/a/nested.py
```
:::
"""


def test_cells_options_and_inline_code():
    page = pages.parse(PAGE, Path("/book/guide/page.md"))
    cells = page.cells
    assert page.is_notebook and page.top_matter == {"file_format": "mystnb"}
    assert [c.load for c in cells] == ["../snippets/a/one.py", "../snippets/a/two.py", None]
    assert [c.line for c in cells] == [12, 17, 24]
    assert [c.load_line for c in cells[:2]] == [14, 20]
    assert cells[0].tags == ("hide-input",) and cells[0].tags_line == 13
    assert cells[1].tags == ("hide-output",)
    assert cells[2].body == ('print("inline")',) and not cells[0].body and not cells[1].body
    assert page.snippets() == [Path("/book/snippets/a/one.py"), Path("/book/snippets/a/two.py")]
    without_top_matter = pages.parse(PAGE.split("---\n", 2)[2], Path("/book/guide/page.md"))
    assert not without_top_matter.is_notebook and len(without_top_matter.cells) == 3


def test_a_directive_fence_with_a_backtick_in_its_title_is_found_at_its_line():
    """Markdown reads ```{dropdown} Why `jit` ... as text; its closing fence then opens a code block
    that swallows the next cell. The good forms: a plain title, a ::: fence, inline code."""
    cell = "```{code-cell} ipython3\n:load: ../snippets/a/one.py\n```\n"
    bad = pages.parse(f"# T\n\n```{{dropdown}} Why `jit` waits\nProse.\n```\n\n{cell}", Path("p.md"))
    assert not bad.cells
    [(line, why)] = bad.not_fences
    assert line == 3 and "'```{dropdown} Why `jit` waits' is not read as a directive" in why
    assert "swallows what follows (the code cell at line 7)" in why
    for good in (
        "```{dropdown} Why jit waits\nProse.\n```\n",
        ":::{dropdown} Why `jit` waits\nProse.\n:::\n",
        "Write ```{code-cell}``` then the options.\n",
        "```{code-cell}``` starts a cell.\n",
    ):
        page = pages.parse(f"# T\n\n{good}\n{cell}", Path("p.md"))
        assert not page.not_fences and len(page.cells) == 1, good


def test_the_book_pages_are_the_pages_sphinx_reads():
    """What conf.py evaluates to: Sphinx reads the pages jaxbook.pages lists (and the 404 page),
    with the MyST extensions the book's own parser uses."""
    import runpy

    from sphinx.project import Project

    conf = runpy.run_path(str(ROOT / "conf.py"))
    read = Project(ROOT, {".md": "markdown"}).discover(conf["exclude_patterns"], conf["include_patterns"])
    assert read - {"404"} == {p.relative_to(ROOT).with_suffix("").as_posix() for p in pages.book_pages(ROOT)}
    assert {"guide/jit", "practice/index", "index"} <= read
    assert conf["myst_enable_extensions"] == list(pages.MYST_EXTENSIONS)
