"""Readers' pages speak to learners (docs/contributing.md, "Whose voice"): no "tested by", no "the
build" but the landing page's one note, no ``jax/_src`` path outside the optional "Under the hood"
pages and footnotes. Each finding names its file and line. The phrases are tools/reading_time.py's
(:data:`tools.reading_time.VOICE`), as are the reader pages and the optional ones."""

from __future__ import annotations

import pytest

from jaxbook import ROOT, pages
from tools.reading_time import VOICE, optional_pages, reader_pages

#: The landing page may say once that every output is real and checked.
LANDING = "index.md"


def footnote_lines(text: str) -> set[int]:
    """The 1-based lines of the footnote definitions of the Markdown ``text`` (MyST's parser)."""
    found = set()
    for token in pages.tokens(text):
        if token.type == "footnote_reference_open" and token.map:
            found.update(range(token.map[0] + 1, token.map[1] + 1))
    return found


def voice_findings(text: str, name: str, optional: bool = False) -> list[str]:
    """``name:line: why`` for each maintainers' phrase in the page source ``text`` that readers
    should not meet; ``optional``: a page under "Under the hood" (``jax/_src`` allowed there)."""
    footnotes = footnote_lines(text)
    found, allowed_build = [], 1 if name == LANDING else 0
    for number, line in enumerate(text.split("\n"), start=1):
        for _ in VOICE["tested by"].finditer(line):
            found.append(f"{name}:{number}: 'tested by' is the maintainers' word: say what the cell shows")
        for _ in VOICE["the build"].finditer(line):
            if allowed_build:
                allowed_build -= 1
                continue
            where = "the landing page's one note says it" if name != LANDING else "said once already"
            found.append(f"{name}:{number}: 'the build' on a reader's page ({where})")
        if VOICE["jax/_src"].search(line) and not optional and number not in footnotes:
            found.append(
                f"{name}:{number}: a jax/_src path in the core path: move it to an 'Under the hood' "
                "page or a footnote"
            )
    return found


@pytest.mark.inputs()
@pytest.mark.parametrize(
    ("text", "name", "optional", "expected"),
    [
        ("Plain prose.\n", "guide/a.md", False, []),
        ("One.\nThis cell is Tested by a test.\n", "guide/a.md", False, ["guide/a.md:2: 'tested by'"]),
        ("The build checks it.\n", "guide/a.md", False, ["guide/a.md:1: 'the build'"]),
        ("A builder is fine; so are the built pages and the building blocks.\n", "guide/a.md", False, []),
        (
            "Measured on the build machine; the build's verdict.\n",
            "guide/a.md",
            False,
            ["guide/a.md:1: 'the", "guide/a.md:1: 'the"],
        ),
        ("Every output: the build checks it.\n", "index.md", False, []),
        ("the build\n\nthe build again\n", "index.md", False, ["index.md:3: 'the build'"]),
        ("See `jax/_src/core.py`.\n", "guide/a.md", False, ["guide/a.md:1: a jax/_src path"]),
        ("See `jax/_src/core.py`.\n", "guide/a_under_the_hood.md", True, []),
        ("Text.[^1]\n\n[^1]: In `jax/_src/core.py`,\n    line two jax/_src/x.py.\n", "guide/a.md", False, []),
        (
            "Text.[^1]\n\n[^1]: A note.\n\nAfter: jax/_src/x.py\n",
            "guide/a.md",
            False,
            ["guide/a.md:5: a jax/_src"],
        ),
    ],
    ids=[
        "clean",
        "tested by",
        "the build",
        "builder",
        "the build's",
        "landing note",
        "landing twice",
        "jax/_src",
        "under the hood",
        "footnote",
        "after a footnote",
    ],
)
def test_the_matcher(text, name, optional, expected):
    found = voice_findings(text, name, optional)
    assert len(found) == len(expected), found
    for finding, start in zip(found, expected, strict=True):
        assert finding.startswith(start), finding


def test_readers_pages_speak_to_learners():
    optional = optional_pages(ROOT)
    found = []
    for page in reader_pages(ROOT):
        name = page.relative_to(ROOT).as_posix()
        found += voice_findings(page.read_text(encoding="utf-8"), name, page in optional)
    assert not found, f"{len(found)} findings:\n" + "\n".join(found)
