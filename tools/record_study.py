"""Record ``make practice`` for practice/index.md: practice/make_practice.svg, from a real run.

The program runs in a pseudo-terminal (tests/test_study.py's Terminal) on a copy of the practice
tree: it starts at masked-mean, the starter is saved with an attempt that divides by a zero count
(the problem's kept wrong solution ``divides_by_zero_count``), and ``h`` asks for a hint. The screen it then shows is written as an SVG of monospace text lines
(no fonts, scripts or requests of its own). Run it again when the screen changes:

    .venv/bin/python tools/record_study.py
"""

from __future__ import annotations

import sys
import tempfile
from html import escape
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from jaxbook import ROOT  # noqa: E402
from jaxbook.practice import patched_solution  # noqa: E402
from practice import study  # noqa: E402
from tests.test_study import ANSI, NONE_PASS, Terminal, practice_copy  # noqa: E402

OUT = ROOT / "practice" / "make_practice.svg"
COLUMNS, FONT, LINE = 100, 13, 17  # characters per line, font size and line height in pixels
COLOURS = {"PASS": "#1a7f37", "FAIL": "#cf222e"}  # with the background below, above 4.5:1 contrast


def record() -> str:
    """The screen after a save of a wrong attempt and one hint, as plain text."""
    with tempfile.TemporaryDirectory() as scratch:
        practice = practice_copy(Path(scratch))
        command = [
            sys.executable,
            "-m",
            "practice.study",
            "--practice",
            str(practice),
            "--problem",
            "masked-mean",
        ]
        term = Terminal(command, ROOT, columns=COLUMNS)
        try:
            term.until(NONE_PASS)
            folder = practice / "arrays" / "masked_mean"
            (folder / "starter.py").write_text(
                patched_solution(folder / "wrong" / "divides_by_zero_count.diff")
            )
            term.until("tests pass: not yet")
            term.press("h")
            term.until("(1/2)", study.KEYS)
            screen = term.raw.rsplit(study.CLEAR, 1)[-1]
            term.press("q")
            term.exit_code()
        finally:
            term.close()
    return ANSI.sub("", screen).replace("\r", "").rstrip("\n")


def line(text: str, y: int) -> str:
    """One line of the screen, PASS and FAIL in colour."""
    parts = []
    for word in text.split(" "):
        colour = COLOURS.get(word)
        parts.append(f'<tspan fill="{colour}" font-weight="bold">{word}</tspan>' if colour else escape(word))
    return f'<text x="12" y="{y}">{" ".join(parts)}</text>'


def svg(screen: str) -> str:
    """The screen as an SVG image of a dark-on-light terminal."""
    lines = screen.split("\n")
    width, height = 24 + COLUMNS * FONT * 0.6, 16 + LINE * len(lines)
    body = "\n".join(line(text, 12 + LINE * (i + 1) - 4) for i, text in enumerate(lines) if text)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width:.0f} {height}" '
        f'width="{width:.0f}" height="{height}" role="img">\n'
        "<title>make practice in a terminal</title>\n"
        f'<rect width="100%" height="100%" rx="6" fill="#f6f8fa" stroke="#d0d7de"/>\n'
        f'<g font-family="ui-monospace, SFMono-Regular, Menlo, Consolas, monospace" font-size="{FONT}" '
        f'fill="#1f2328" xml:space="preserve">\n{body}\n</g>\n</svg>\n'
    )


if __name__ == "__main__":
    OUT.write_text(svg(record()), encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}")
