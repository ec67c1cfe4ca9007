"""``make reading`` (tools/reading_time.py): words and minutes of each reader page's core and
optional layer, each step's core against its target, and the maintainers' voice, on a small book."""

from __future__ import annotations

import pytest

from tools import reading_time

pytestmark = pytest.mark.inputs()

TOP = "---\nfile_format: mystnb\n---\n"
INDEX = """\
# Book

Five words of landing prose.

```{toctree}
:caption: The ten steps
:hidden:

guide/one
guide/nine
```

```{toctree}
:caption: Under the hood
:hidden:

guide/one_under_the_hood
```

```{toctree}
:caption: Contributing
:hidden:

docs/contributing
```
"""
ONE = (
    TOP
    + """\
# Step 1: One

Four words of prose, `jit` counts.[^a]

:::{dropdown} Under the hood: why
Six optional words sit in here.
:::

```{code-cell} ipython3
:load: ../snippets/one/x.py
```

```{code-cell} ipython3
:load: ../snippets/one/x.py
:tags: [hide-input]
```

::::{only} html
Three html words.
::::

:::{only} notebook
Not on the page at all.
:::

[link text](../index.md) and {ref}`role text <target>` here.

[^a]: A footnote of five words.

```{toctree}
:hidden:

one_part
```
"""
)


@pytest.fixture
def book(tmp_path):
    (tmp_path / "guide").mkdir()
    (tmp_path / "docs").mkdir()
    (tmp_path / "snippets" / "one").mkdir(parents=True)
    (tmp_path / "index.md").write_text(INDEX)
    (tmp_path / "guide" / "one.md").write_text(ONE)
    (tmp_path / "guide" / "one_part.md").write_text("# Step 1b: Part\n\n" + "word " * 400 + "\n")
    (tmp_path / "guide" / "one_under_the_hood.md").write_text(
        "# Step 1, under the hood\n\nSeven words the hurried reader may skip.\n"
    )
    (tmp_path / "guide" / "nine.md").write_text(
        "# Step 9: Nine\n\n" + "word " * 8100 + "\n\nThe build checks it.\n"
    )
    (tmp_path / "docs" / "contributing.md").write_text("# Contributing\n\ntested by the build\n")
    # the contract's lines are hidden: 6 words of code are shown
    (tmp_path / "snippets" / "one" / "x.py").write_text(
        "# raises: ValueError\n\nx = 1\nraise ValueError(x)\n"
    )
    return tmp_path


def test_each_reader_page_counts_its_core_and_optional_words(book):
    counts, _ = reading_time.report(book)
    found = {c.path: c for c in counts}
    assert "docs/contributing.md" not in found  # a contributors' page
    one = found["guide/one.md"]
    # title 3, prose 6 ("`jit`" is a word), the dropdown's title 4 (shown when closed), html 3,
    # the link line 6 (no target), the footnote 5
    assert one.core.prose == 3 + 6 + 4 + 3 + 6 + 5
    assert one.core.code == 5  # "x = 1" and "raise ValueError(x)": 3 + 2 words
    assert (one.optional.prose, one.optional.code) == (6, 5)  # the hidden input is optional
    assert one.core.minutes == pytest.approx(27 / 200 + 5 / 100)
    hood = found["guide/one_under_the_hood.md"]
    assert (hood.core.prose, hood.optional.prose) == (0, 5 + 7)  # the whole page is optional


def test_a_step_holds_its_parts_but_not_the_optional_pages_and_has_a_target(book):
    _, steps = reading_time.report(book)
    assert [(s.page, s.number, s.parts, s.target) for s in steps] == [
        ("guide/one.md", 1, ["guide/one_part.md"], 25),
        ("guide/nine.md", 9, [], 40),
    ]
    one = steps[0]
    assert one.core.prose == 27 + 3 + 400  # with the part's title and words
    assert reading_time.over_target(steps) == [steps[1]]  # 8,103 words: 40.5 minutes


def test_check_names_the_steps_over_target_and_fails(book, capsys):
    assert reading_time.main(["--root", str(book)]) == 0  # a report, no verdict
    assert reading_time.main(["--root", str(book), "--check"]) == 1
    err = capsys.readouterr().err
    assert "guide/nine.md: Step 9's core takes 40.5 minutes, over its target of 40" in err
    assert "guide/one.md" not in err
    (book / "guide" / "nine.md").write_text("# Step 9: Nine\n\nShort now.\n")
    assert reading_time.main(["--root", str(book), "--check"]) == 0


def test_the_maintainers_voice_is_counted_per_page(book):
    counts, _ = reading_time.report(book)
    found = {c.path: c.voice for c in counts}
    assert found["guide/nine.md"] == {"tested by": 0, "the build": 1, "jax/_src": 0, "header lines": 0}
    assert found["guide/one.md"]["header lines"] == 0  # hidden by the machinery
