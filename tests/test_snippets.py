"""Every snippet of the book, discovered automatically, run in a fresh interpreter under its contract.

The test id is the snippet's path under snippets/, the name shown above its cell on the site:
    pytest "tests/test_snippets.py::test_snippet[arrays/at_methods.py]"
"""
from __future__ import annotations

import re
import subprocess
import sys

import pytest

from jaxbook import ROOT, runtime
from jaxbook.snippet import DECLARATION, parse_declaration, source_of

SNIPPETS = ROOT / "snippets"


def discover():
    """Snippet files: every .py under snippets/ except helpers (_name.py) and caches."""
    return sorted(p for p in SNIPPETS.rglob("*.py")
                  if not p.name.startswith("_") and "__pycache__" not in p.parts)


@pytest.mark.parametrize("path", discover(), ids=lambda p: p.relative_to(SNIPPETS).as_posix())
def test_snippet(path):
    result = subprocess.run([sys.executable, "-m", "jaxbook.run", str(path)], cwd=ROOT,
                            capture_output=True, text=True, timeout=runtime.SNIPPET_TIMEOUT + 60)
    assert result.returncode == 0, result.stderr
    declaration = parse_declaration(source_of(path), str(path))
    if declaration is not None:
        # The declared error was raised and its trimmed traceback printed, with the error line.
        name = re.escape(declaration.raises.rsplit(".", 1)[-1])
        assert result.stderr.startswith("Traceback (most recent call last):"), result.stderr
        assert re.search(rf"^([\w.]+\.)?{name}(:|$)", result.stderr, re.M), result.stderr


def test_discovery_finds_the_snippets():
    names = {p.relative_to(SNIPPETS).as_posix() for p in discover()}
    assert "arrays/inplace_error.py" in names
    assert not any(name.rsplit("/", 1)[-1].startswith("_") for name in names)


def test_every_snippet_is_shown_on_a_page():
    """A snippet that no page loads is dead code that nobody reads."""
    pages = [p for pattern in ("index.md", "guide/*.md", "docs/*.md", "practice/**/*.md")
             for p in ROOT.glob(pattern)]
    loaded = set()
    for page in pages:
        for line in page.read_text(encoding="utf-8").splitlines():
            if line.strip().startswith(":load:"):
                loaded.add((page.parent / line.split(":load:", 1)[1].strip()).resolve())
    unused = [p.relative_to(ROOT).as_posix() for p in discover() if p.resolve() not in loaded]
    assert not unused, f"snippets not loaded by any page: {unused}"


#: Characters a code box on the site shows without scrolling (the theme's content column).
MAX_LINE = 79


def test_shown_code_fits_the_code_box():
    """Snippets, their helpers and the practice starters and solutions are shown on pages;
    a longer line is cut off at the box's edge. Error declarations may be longer."""
    shown = [*SNIPPETS.rglob("*.py"), *ROOT.glob("practice/*/*/starter.py"),
             *ROOT.glob("practice/*/*/solution.py")]
    too_long = [f"{path.relative_to(ROOT)}:{number} ({len(line)} chars)"
                for path in shown if "__pycache__" not in path.parts
                for number, line in enumerate(source_of(path).splitlines(), start=1)
                if len(line) > MAX_LINE and not DECLARATION.match(line.strip())]
    assert not too_long, "\n".join(too_long)
